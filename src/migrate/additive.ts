import type { ColumnSnapshot } from '../schema/snapshot.js';
import type { Diff, Step, TableChange } from './diff.js';

/**
 * What of a migration is not **additive** (SPEC §11), in words, one line a change; empty when it is additive. An
 * additive migration only adds what a build from before it does not see and does not need: new tables, new columns
 * that are nullable or have a default (a row the older build inserts without them takes NULL or the default), new
 * plain or trigram indexes (and plain indexes made again in id order). An older build still runs on the database
 * such a migration left, so a rollout can be rolled back past it, and a pod of the older build restarted mid-rollout
 * starts (the generated runtime reads the mark from the database: db/migration-book.ts).
 *
 * Everything else is not: a table or column dropped or renamed (the older build's statements name them), a change of
 * a column's type, nullability, default, values or reference (it reads or writes values it was not made for), a
 * uniqueness added (a new unique column with a default, a field made unique, a new key: it changes which of the older
 * build's writes succeed), new ids; and an index or a uniqueness removed, which only takes away (the rule is kept to
 * what only adds, as SPEC says it). The event tables
 * the definition's `events` and `webhooks` create are new tables: additive (an older build writes no events).
 */
export function notAdditive(changes: Diff): string[] {
  return [
    ...changes.dropped.map((t) => `drop the table of ${t.resource}`),
    ...changes.changed.flatMap((change) => tableChanges(change)),
  ];
}

function tableChanges({ before, after, steps }: TableChange): string[] {
  const resource = after.resource;
  if (before.id !== after.id) return [`recreate the table of ${resource} (new id kind)`];
  const keys = (keyed: typeof before.keys): string =>
    JSON.stringify((keyed ?? []).map((key) => [...key].sort()).sort());
  const renamed = new Map(steps.flatMap((s) => (s.kind === 'renameColumn' ? [[s.from, s.to] as const] : [])));
  const keptKeys = before.keys?.map((key) => key.map((name) => renamed.get(name) ?? name));
  return [
    ...(before.name === after.name ? [] : [`rename ${before.resource} to ${resource}`]),
    ...steps.flatMap((step) => stepChange(resource, step, (column) => fieldOf(before.columns, column))),
    ...(keys(keptKeys) === keys(after.keys) ? [] : [`change the unique keys of ${resource}`]),
  ];
}

function stepChange(resource: string, step: Step, oldField: (column: string) => string): string[] {
  switch (step.kind) {
    case 'addColumn':
      return addsOnly(step.column) ? [] : [`add ${resource}.${step.column.field} ${addedHow(step.column)}`];
    case 'dropColumn':
      return [`drop ${resource}.${step.column.field}`];
    case 'renameColumn':
      return [`rename ${resource}.${oldField(step.from)}`];
    case 'alterColumn':
      return indexesAddedOnly(step.from, step.to) ? [] : [`change ${resource}.${step.to.field}`];
    default:
      return [`${step.kind} ${resource}`];
  }
}

/** The field of a column, by the column's name (the steps name columns: chip_number for chipNumber). */
const fieldOf = (columns: readonly ColumnSnapshot[], name: string): string =>
  columns.find((c) => c.name === name)?.field ?? name;

/** A new column an older build's inserts leave out without harm: nullable, or defaulted and not unique. */
const addsOnly = (column: ColumnSnapshot): boolean =>
  !column.notNull || (column.default !== undefined && !column.unique);

const addedHow = (column: ColumnSnapshot): string =>
  column.default === undefined ? 'required with no default' : 'unique with a default';

/** The column as stored is the same, but for indexes it gains (a plain one, a trigram one). */
function indexesAddedOnly(from: ColumnSnapshot, to: ColumnSnapshot): boolean {
  const stored = ({ field: _f, name: _n, index: _i, trigram: _t, ...rest }: ColumnSnapshot): string =>
    JSON.stringify(rest);
  return stored(from) === stored(to) && (to.index || !from.index) && (to.trigram === true || from.trigram !== true);
}
