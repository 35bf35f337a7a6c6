import { UserError } from '../errors.js';
import type { Api, JsonValue } from '../model.js';
import { notAdditive } from './additive.js';
import { cautionsOf } from './cautions.js';
import { lossesOf, type Loss } from './data-loss.js';
import { diff, isEmpty, renamesOf, tableRenamesOf, type Diff, type Step } from './diff.js';
import {
  EMPTY_SNAPSHOT,
  snapshotOf,
  type ColumnSnapshot,
  type Snapshot,
  type TableSnapshot,
} from '../schema/snapshot.js';
import { postgresMigration } from './postgres.js';
import { sqliteMigration } from './sqlite.js';
import { EVENT_TABLES, renamedEvents, SYSTEM_TABLES, webhookTables } from './system-tables.js';

/** A new migration: its file name, what it does in words, and its statements per dialect. */
export interface PlannedMigration {
  name: string;
  summary: string[];
  /** the data it would lose (planned only with allowDataLoss) */
  losses: Loss[];
  /** what it may fail on, depending on the rows there are (cautions.ts) */
  cautions: string[];
  /**
   * an older build still runs on the database this migration leaves (additive.ts): recorded with it in the database,
   * where that build reads it
   */
  additive: boolean;
  /** what of it is not additive, in words (empty when it is) */
  notAdditive: string[];
  sqlite: string[];
  postgres: string[];
}

/** A migration that would lose data, refused until the user says --allow-data-loss. */
export class DataLossError extends UserError {
  constructor(readonly losses: Loss[]) {
    super(
      [
        'this change to the data model would lose data, so nothing was written:',
        ...lossLines(losses),
        'To accept the loss: run generate again with --allow-data-loss.',
      ].join('\n'),
    );
    this.name = 'DataLossError';
  }
}

/** Each loss, and under it what would keep the data. */
export const lossLines = (losses: readonly Loss[]): string[] =>
  losses.flatMap((loss) => [`  - ${loss.message}`, `    to keep it: ${loss.keep}`]);

/**
 * The migration from the model of the last run (`previous`, absent on the first) to `api`'s; undefined when
 * the data model did not change. `existing` are the names of the migrations already written.
 */
export function planMigration(
  api: Api,
  previous: Snapshot | undefined,
  existing: readonly string[],
  allowDataLoss: boolean,
): PlannedMigration | undefined {
  const changes = diff(previous ?? EMPTY_SNAPSHOT, snapshotOf(api), renamesOf(api), tableRenamesOf(api));
  const events = api.events !== undefined && previous?.events !== true;
  const webhooks = api.events?.webhooks === true && previous?.webhooks !== true;
  if (isEmpty(changes) && !events && !webhooks) return undefined;
  const losses = lossesOf(changes, snapshotOf(api));
  // the past events of a renamed resource become the new name's, where the event tables exist already
  const renamed = changes.changed.filter((c) => c.before.name !== c.after.name && previous?.events === true);
  const eventRenames = renamed.flatMap((c) =>
    renamedEvents(c.before.resource, c.after.resource, previous?.webhooks === true),
  );
  if (losses.length > 0 && !allowDataLoss) throw new DataLossError(losses);
  const number = String(existing.length + 1).padStart(4, '0');
  const breaking = notAdditive(changes);
  return {
    name: `${number}-${previous === undefined ? 'initial' : isEmpty(changes) ? (events ? 'events' : 'webhooks') : slug(changes)}`,
    summary: [
      ...describe(changes),
      ...renamed.map((c) => `serve the past events of ${c.before.resource} as events of ${c.after.resource}`),
      ...(events ? ['create the event log (events)'] : []),
      ...(webhooks ? ['create the tables of webhooks and their deliveries'] : []),
    ],
    losses,
    cautions: cautionsOf(changes, api),
    additive: breaking.length === 0,
    notAdditive: breaking,
    sqlite: [
      ...(previous === undefined ? SYSTEM_TABLES.sqlite : []),
      ...sqliteMigration(changes),
      ...eventRenames,
      ...(events ? EVENT_TABLES.sqlite : []),
      ...(webhooks ? webhookTables('sqlite') : []),
    ],
    postgres: [
      ...(previous === undefined ? SYSTEM_TABLES.postgres : []),
      ...postgresMigration(changes, snapshotOf(api)),
      ...eventRenames,
      ...(events ? EVENT_TABLES.postgres : []),
      ...(webhooks ? webhookTables('postgres') : []),
    ],
  };
}

function slug(changes: Diff): string {
  const words = [
    ...changes.created.map((t) => `create-${t.resource}`),
    ...changes.changed.map((c) => `change-${c.after.resource}`),
    ...changes.dropped.map((t) => `drop-${t.resource}`),
  ];
  return words.slice(0, 3).join('-').slice(0, 60).replace(/-+$/, '');
}

/** The migration in words, one line a step, for its doc comment and --dry-run. */
export function describe(changes: Diff): string[] {
  const step = ({ before, after }: Diff['changed'][number], s: Step): string => {
    const resource = after.resource;
    switch (s.kind) {
      case 'addColumn':
        return `add ${resource}.${s.column.field}`;
      case 'dropColumn':
        return `drop ${resource}.${s.column.field}`;
      case 'renameColumn':
        // the fields' names, as the definition says them (the steps name columns: chip_number for chipNumber)
        return `rename ${resource}.${fieldOf(before, s.from)} to ${fieldOf(after, s.to)} (data kept)`;
      case 'alterColumn': {
        const what = alterations(s.from, s.to);
        return `change ${resource}.${s.to.field}${what.length === 0 ? '' : `: ${what.join(', ')}`}`;
      }
      default:
        return `${s.kind} ${resource}`;
    }
  };
  return [
    ...changes.created.map((t) => `create the table of ${t.resource}`),
    ...changes.changed.flatMap((c) =>
      c.before.id !== c.after.id
        ? [`recreate the table of ${c.after.resource} (new id kind)`]
        : [
            ...(c.before.name === c.after.name
              ? []
              : [`rename ${c.before.resource} to ${c.after.resource} (its rows and the refs to it kept)`]),
            ...c.steps.map((s) => step(c, s)),
            ...(JSON.stringify(c.before.keys ?? []) === JSON.stringify(c.after.keys ?? [])
              ? []
              : [`change the unique keys of ${c.after.resource}`]),
            ...(c.before.indexOrder === c.after.indexOrder
              ? []
              : [`index ${c.after.resource} in id order (no data changes)`]),
          ],
    ),
    ...changes.dropped.map((t) => `drop the table of ${t.resource}`),
  ];
}

/** What changes of a column, in words: `made unique`, `type string → integer`. */
export function alterations(from: ColumnSnapshot, to: ColumnSnapshot): string[] {
  const value = (v: JsonValue | undefined): string => (v === undefined ? 'none' : JSON.stringify(v));
  const changed = (key: keyof ColumnSnapshot): boolean => JSON.stringify(from[key]) !== JSON.stringify(to[key]);
  return [
    ...(changed('type') ? [`type ${from.type} → ${to.type}`] : []),
    ...(changed('notNull') ? [to.notNull ? 'null no longer allowed' : 'null allowed'] : []),
    ...(changed('default') ? [`default ${value(from.default)} → ${value(to.default)}`] : []),
    ...(changed('unique') ? [to.unique ? 'made unique' : 'no longer unique'] : []),
    ...(changed('caseInsensitive') && to.unique && from.unique
      ? [to.caseInsensitive ? 'unique whatever the case' : 'unique as written']
      : []),
    ...(changed('index') ? [to.index ? 'indexed' : 'no longer indexed'] : []),
    ...(changed('trigram') ? [to.trigram ? 'trigram-indexed (contains)' : 'no longer trigram-indexed'] : []),
    ...(changed('values') ? [`values ${(from.values ?? []).join(', ')} → ${(to.values ?? []).join(', ')}`] : []),
    ...(from.ref?.table !== to.ref?.table ? [`refers to ${to.ref?.table ?? 'nothing'}`] : []),
    ...(from.ref !== undefined && to.ref !== undefined && from.ref.onDelete !== to.ref.onDelete
      ? [`onDelete ${from.ref.onDelete} → ${to.ref.onDelete}`]
      : []),
  ];
}

/** The field of a table's column, by the column's name. */
const fieldOf = (table: TableSnapshot, column: string): string =>
  table.columns.find((c) => c.name === column)?.field ?? column;
