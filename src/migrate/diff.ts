import type { Api } from '../model.js';
import { names } from '../naming.js';
import type { ColumnSnapshot, Snapshot, TableSnapshot } from '../schema/snapshot.js';

/** One change of the data model, independent of any SQL dialect. */
export type Step =
  | { kind: 'createTable'; table: TableSnapshot }
  | { kind: 'dropTable'; table: TableSnapshot }
  | { kind: 'addColumn'; table: string; column: ColumnSnapshot }
  | { kind: 'dropColumn'; table: string; column: ColumnSnapshot }
  | { kind: 'renameColumn'; table: string; from: string; to: string }
  | { kind: 'alterColumn'; table: string; from: ColumnSnapshot; to: ColumnSnapshot };

/**
 * What a migration does to one existing table: the steps, and the table before and after (renamed when their names
 * differ: `renamedFrom` of a resource).
 */
export interface TableChange {
  before: TableSnapshot;
  after: TableSnapshot;
  steps: Step[];
}

export interface Diff {
  created: TableSnapshot[];
  dropped: TableSnapshot[];
  changed: TableChange[];
}

/** Old column name → new column name, from the `renamedFrom` of each field. */
export function renamesOf(api: Api): Map<string, Map<string, string>> {
  return new Map(
    api.resources.map((r) => [
      r.table,
      new Map(r.fields.flatMap((f) => (f.renamedFrom === undefined ? [] : [[names(f.renamedFrom).snake, f.column]]))),
    ]),
  );
}

/** Old table name → new, from the `renamedFrom` of each resource. */
export function tableRenamesOf(api: Api): Map<string, string> {
  return new Map(
    api.resources.flatMap((r) => (r.renamedFrom === undefined ? [] : [[names(r.renamedFrom).snake, r.table]])),
  );
}

/**
 * The changes that turn `before` into `after`; tables are matched by name or `renamedFrom` (`tables`: old name →
 * new), columns by name or `renamedFrom`. A ref to a renamed table is the same ref: both databases follow a table
 * renamed under it (PostgreSQL's foreign keys name no table; SQLite's ALTER TABLE … RENAME rewrites them).
 */
export function diff(
  before: Snapshot,
  after: Snapshot,
  renames: Map<string, Map<string, string>>,
  tables: ReadonlyMap<string, string> = new Map(),
): Diff {
  const old = new Map(before.tables.map((t) => [t.name, t]));
  const oldName = new Map([...tables].map(([from, to]) => [to, from]));
  const sourceOf = (table: TableSnapshot): TableSnapshot | undefined =>
    old.get(table.name) ?? old.get(oldName.get(table.name) ?? '');
  const created = after.tables.filter((t) => sourceOf(t) === undefined);
  const kept = new Set(after.tables.flatMap((t) => [sourceOf(t)?.name ?? '']));
  const dropped = before.tables.filter((t) => !kept.has(t.name));
  const changed = after.tables.flatMap((table) => {
    const previous = sourceOf(table);
    if (previous === undefined) return [];
    const steps = tableSteps(previous, table, renames.get(table.name) ?? new Map(), tables);
    // keys, and the shape of plain indexes (see TableSnapshot.indexOrder), change indexes only
    const sameKeys =
      JSON.stringify(previous.keys ?? []) === JSON.stringify(table.keys ?? []) &&
      (previous.indexOrder === table.indexOrder || !table.columns.some((c) => c.index));
    return steps.length === 0 && previous.id === table.id && sameKeys && previous.name === table.name
      ? []
      : [{ before: previous, after: table, steps }];
  });
  return { created, dropped, changed };
}

function tableSteps(
  before: TableSnapshot,
  after: TableSnapshot,
  renames: Map<string, string>,
  tables: ReadonlyMap<string, string>,
): Step[] {
  const steps: Step[] = [];
  const matched = new Set<string>();
  for (const column of after.columns) {
    const renamedFrom = [...renames].find(([, to]) => to === column.name)?.[0];
    const source =
      before.columns.find((c) => c.name === column.name) ??
      (renamedFrom === undefined ? undefined : before.columns.find((c) => c.name === renamedFrom));
    if (source === undefined) {
      steps.push({ kind: 'addColumn', table: after.name, column });
      continue;
    }
    matched.add(source.name);
    if (source.name !== column.name)
      steps.push({ kind: 'renameColumn', table: after.name, from: source.name, to: column.name });
    const renamedRef = source.ref === undefined ? undefined : tables.get(source.ref.table);
    const followed =
      renamedRef === undefined || source.ref === undefined
        ? source
        : { ...source, ref: { ...source.ref, table: renamedRef } };
    if (!sameColumn(followed, column))
      steps.push({ kind: 'alterColumn', table: after.name, from: followed, to: column });
  }
  for (const column of before.columns) {
    if (!matched.has(column.name)) steps.push({ kind: 'dropColumn', table: after.name, column });
  }
  return steps;
}

/** Equal as stored: the API name of a field is not part of the column. */
function sameColumn(a: ColumnSnapshot, b: ColumnSnapshot): boolean {
  const stored = ({ field: _field, name: _name, ...rest }: ColumnSnapshot) => JSON.stringify(rest);
  return stored(a) === stored(b);
}

export const isEmpty = (d: Diff): boolean => d.created.length === 0 && d.dropped.length === 0 && d.changed.length === 0;
