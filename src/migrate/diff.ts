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

/** What a migration does to one existing table: the steps, and the table before and after. */
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

/** The changes that turn `before` into `after`; tables are matched by name, columns by name or `renamedFrom`. */
export function diff(before: Snapshot, after: Snapshot, renames: Map<string, Map<string, string>>): Diff {
  const old = new Map(before.tables.map((t) => [t.name, t]));
  const created = after.tables.filter((t) => !old.has(t.name));
  const dropped = before.tables.filter((t) => !after.tables.some((n) => n.name === t.name));
  const changed = after.tables.flatMap((table) => {
    const previous = old.get(table.name);
    if (previous === undefined) return [];
    const steps = tableSteps(previous, table, renames.get(table.name) ?? new Map());
    // keys, and the shape of plain indexes (see TableSnapshot.indexOrder), change indexes only
    const sameKeys =
      JSON.stringify(previous.keys ?? []) === JSON.stringify(table.keys ?? []) &&
      (previous.indexOrder === table.indexOrder || !table.columns.some((c) => c.index));
    return steps.length === 0 && previous.id === table.id && sameKeys
      ? []
      : [{ before: previous, after: table, steps }];
  });
  return { created, dropped, changed };
}

function tableSteps(before: TableSnapshot, after: TableSnapshot, renames: Map<string, string>): Step[] {
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
    if (!sameColumn(source, column)) steps.push({ kind: 'alterColumn', table: after.name, from: source, to: column });
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
