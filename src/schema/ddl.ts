import type { ColumnSnapshot, Snapshot, TableSnapshot } from './snapshot.js';
import type { SqlDialect } from './dialect.js';
import { dropTrigramStatements, extensionOnce, trigramStatements, trigramTable } from './trigram.js';

/** The statements that create a whole schema from nothing, tables in dependency order. */
export function createSchema(snapshot: Snapshot, d: SqlDialect): string[] {
  return extensionOnce(dependencyOrder(snapshot.tables).flatMap((table) => createTableWithIndexes(table, d)));
}

export function createTableWithIndexes(table: TableSnapshot, d: SqlDialect): string[] {
  return [createTable(table, d), ...indexesOf(table).flatMap((index) => indexStatements(table, index, d))];
}

/**
 * CREATE TABLE, under another name when a table is being rebuilt; without `references`, its foreign keys are left
 * for ALTER TABLE (PostgreSQL checks that a referenced table exists, and tables may refer to each other).
 */
export function createTable(table: TableSnapshot, d: SqlDialect, name = table.name, references = true): string {
  const columns = [
    `${d.ident('id')} ${d.idColumn(table.id)}`,
    ...table.columns.map((c) => columnDefinition(c, d, table.name, references)),
    `${d.ident('created_at')} ${d.timestampType} NOT NULL`,
    `${d.ident('updated_at')} ${d.timestampType} NOT NULL`,
    `${d.ident('version')} ${d.versionType} NOT NULL DEFAULT 1`,
  ];
  return `CREATE TABLE ${d.ident(name)} (\n  ${columns.join(',\n  ')}\n)`;
}

/** The name of the foreign key of a ref column: PostgreSQL migrations drop and add it by name. */
export const foreignKeyName = (table: string, column: string): string => `${table}_${column}_fkey`;

/** A column of CREATE TABLE or ADD COLUMN; `table` names its foreign key on PostgreSQL. */
export function columnDefinition(column: ColumnSnapshot, d: SqlDialect, table: string, references = true): string {
  const parts = [d.ident(column.name), d.columnType(column)];
  if (column.notNull) parts.push('NOT NULL');
  if (column.default !== undefined) parts.push(`DEFAULT ${d.literal(column.default, column)}`);
  if (column.ref !== undefined && references) {
    if (d.name === 'postgres') parts.push(`CONSTRAINT ${d.ident(foreignKeyName(table, column.name))}`);
    parts.push(referencesClause(column.ref, d));
  }
  return parts.join(' ');
}

/** `REFERENCES target (id) ON DELETE …`: of a column definition, or of a foreign key added later. */
export function referencesClause(ref: NonNullable<ColumnSnapshot['ref']>, d: SqlDialect): string {
  return `REFERENCES ${d.ident(ref.table)} (${d.ident('id')}) ON DELETE ${d.onDelete(ref.onDelete)}`;
}

export interface IndexSnapshot {
  name: string;
  /** one column, or the columns of a unique key in their order */
  columns: string[];
  unique: boolean;
  /** on lower(column): ASCII case is ignored (lower() folds ASCII letters only, alike on SQLite and on "C" text) */
  lower?: true;
  /** the trigram index of one column (`index: trigram`, see trigram.ts) */
  trigram?: true;
}

/**
 * Unique indexes for `unique`, plain ones for `index`, the owner and every `ref` (joins, cascades, restrict checks)
 * — `(column, id)`, so that a listing filtered on the column reads it in id order without sorting — and a unique
 * index per key of several columns.
 */
export function indexesOf(table: TableSnapshot): IndexSnapshot[] {
  const single = table.columns.flatMap((c): IndexSnapshot[] => {
    if (c.unique && c.caseInsensitive) {
      return [{ name: `${table.name}_${c.name}_lower_key`, columns: [c.name], unique: true, lower: true }];
    }
    if (c.unique) return [{ name: `${table.name}_${c.name}_key`, columns: [c.name], unique: true }];
    if (c.index) {
      const columns = table.indexOrder === 'id' ? [c.name, 'id'] : [c.name];
      return [{ name: `${table.name}_${c.name}_idx`, columns, unique: false }];
    }
    return [];
  });
  const trigrams = table.columns.flatMap((c): IndexSnapshot[] =>
    c.trigram === true
      ? [{ name: trigramTable(table.name, c.name), columns: [c.name], unique: false, trigram: true }]
      : [],
  );
  const keys = (table.keys ?? []).map((columns): IndexSnapshot => ({
    name: `${table.name}_${columns.join('_')}_key`,
    columns: [...columns],
    unique: true,
  }));
  return [...single, ...trigrams, ...keys];
}

/** The statements that make one index of `table` (a trigram index is several on SQLite). */
export function indexStatements(
  table: Pick<TableSnapshot, 'name' | 'id'>,
  index: IndexSnapshot,
  d: SqlDialect,
): string[] {
  const column = index.columns[0] ?? '';
  return index.trigram === true
    ? trigramStatements(table.name, column, table.id, d)
    : [createIndex(table.name, index, d)];
}

/** The statements that drop one index of `table`. */
export function dropIndexStatements(table: string, index: IndexSnapshot, d: SqlDialect): string[] {
  if (index.trigram === true) return dropTrigramStatements(table, index.columns[0] ?? '', d);
  return [d.name === 'postgres' ? `DROP INDEX IF EXISTS ${d.ident(index.name)}` : `DROP INDEX ${d.ident(index.name)}`];
}

/** What tells two indexes apart in a migration: one that differs is dropped and made again. */
export const indexKey = (i: IndexSnapshot): string =>
  `${i.name}:${i.unique}:${i.trigram === true ? 'trigram:' : ''}${i.columns.join(',')}`;

export function createIndex(table: string, index: IndexSnapshot, d: SqlDialect): string {
  const columns = index.columns.map((c) => (index.lower ? `lower(${d.ident(c)})` : d.ident(c))).join(', ');
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${d.ident(index.name)} ON ${d.ident(table)} (${columns})`;
}

/** Tables with every referenced table first; a cycle keeps the given order. */
export function dependencyOrder<T extends { name: string; columns: readonly { ref?: { table: string } }[] }>(
  tables: readonly T[],
): T[] {
  const done = new Set<string>();
  const ordered: T[] = [];
  const visit = (table: T, path: Set<string>): void => {
    if (done.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const column of table.columns) {
      const target = tables.find((t) => t.name === column.ref?.table);
      if (target !== undefined && target !== table) visit(target, path);
    }
    done.add(table.name);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}
