import {
  columnDefinition,
  createTable,
  createTableWithIndexes,
  dependencyOrder,
  dropIndexStatements,
  indexesOf,
  indexKey,
  indexStatements,
} from '../schema/ddl.js';
import { sqlite as d } from '../schema/dialect.js';
import { checksValues, keepsEnumValues, sqliteChecked } from './checked-values.js';
import { columnLoss } from './data-loss.js';
import type { Diff, Step, TableChange } from './diff.js';
import type { ColumnSnapshot } from '../schema/snapshot.js';

/**
 * The SQLite statements of a migration. What ALTER TABLE can do is done with it (add, rename and drop
 * plain columns, indexes); anything else rebuilds the table as SQLite documents it (create the new table,
 * copy every row, drop the old one, rename), inside the migration's transaction with foreign keys off.
 */
export function sqliteMigration(diff: Diff): string[] {
  return [
    ...dependencyOrder(diff.created).flatMap((table) => createTableWithIndexes(table, d)),
    ...diff.changed.flatMap((change) => (canAlter(change) ? alterStatements(change) : rebuildStatements(change))),
    ...diff.dropped.flatMap((table) => [
      // a trigram index's FTS table is a table of its own (its triggers go with the table)
      ...indexesOf(table)
        .filter((i) => i.trigram === true)
        .flatMap((i) => dropIndexStatements(table.name, i, d)),
      `DROP TABLE ${d.ident(table.name)}`,
    ]),
  ];
}

function canAlter(change: TableChange): boolean {
  return change.before.id === change.after.id && change.steps.every(alterable);
}

/**
 * SQLite's ALTER TABLE adds a column only when it is nullable or has a default, and without REFERENCES (a unique
 * column's UNIQUE is an index of its own, made after it: see ddl.ts, indexesOf).
 */
function alterable(step: Step): boolean {
  switch (step.kind) {
    case 'renameColumn':
      return true;
    case 'alterColumn':
      // the column as CREATE TABLE defines it stays the same: what changes is its indexes (unique, index, the case of
      // letters: the index statements make them) or what the API takes (an enum's values, string to text, which
      // SQLite does not store: no CHECK); the values the copy would replace (an enum's removed ones) are updated
      // (not a value that is another type in JSON, boolean to integer or json to text: the rebuild gives it a new
      // version, as PostgreSQL's UPDATE does, so that an old ETag no longer matches)
      return (
        sameDefinition(step.from, step.to) &&
        jsonKind(step.from.type) === jsonKind(step.to.type) &&
        (convert(step.from, step.to) === d.ident(step.from.name) || step.to.type === 'enum')
      );
    case 'addColumn':
      return !(step.column.notNull && step.column.default === undefined) && step.column.ref === undefined;
    case 'dropColumn':
      return step.column.ref === undefined;
    default:
      return false;
  }
}

function alterStatements({ before, after, steps }: TableChange): string[] {
  const table = d.ident(after.name);
  const oldIndexes = indexesOf(before);
  const newIndexes = indexesOf(after);
  const dropped = oldIndexes.filter((i) => !newIndexes.some((n) => indexKey(n) === indexKey(i)));
  const added = newIndexes.filter((i) => !oldIndexes.some((o) => indexKey(o) === indexKey(i)));
  return [
    // a renamed resource: the table keeps its rows, and the REFERENCES of other tables follow it (SQLite ≥ 3.26);
    // its indexes, named after the table, are made again under the new name
    ...(before.name === after.name ? [] : [`ALTER TABLE ${d.ident(before.name)} RENAME TO ${table}`]),
    ...dropped.flatMap((i) => dropIndexStatements(after.name, i, d)),
    ...steps.flatMap((step) => {
      if (step.kind === 'renameColumn')
        return [`ALTER TABLE ${table} RENAME COLUMN ${d.ident(step.from)} TO ${d.ident(step.to)}`];
      if (step.kind === 'addColumn')
        return [`ALTER TABLE ${table} ADD COLUMN ${columnDefinition(step.column, d, step.table)}`];
      if (step.kind === 'dropColumn') return [`ALTER TABLE ${table} DROP COLUMN ${d.ident(step.column.name)}`];
      if (step.kind === 'alterColumn' && step.to.type === 'enum') return enumValues(table, step.from, step.to);
      return [];
    }),
    ...added.flatMap((i) => indexStatements(after, i, d)),
  ];
}

/** CREATE TABLE's definition of the column, whatever it was called (a rename in the same change is a step of its own). */
const sameDefinition = (from: ColumnSnapshot, to: ColumnSnapshot): boolean =>
  columnDefinition({ ...from, name: to.name }, d, '') === columnDefinition(to, d, '');

/**
 * An enum's values changed in place: a stored value that is not one of them any more takes the default (or NULL), and
 * a new version, as the rebuild's copy would give it (`convert`); a widened enum changes no row, and needs nothing.
 */
function enumValues(table: string, from: ColumnSnapshot, to: ColumnSnapshot): string[] {
  if (keepsEnumValues(from, to)) return [];
  const column = d.ident(to.name);
  const values = (to.values ?? []).map((v) => d.literal(v, to)).join(', ');
  const fallback = to.default === undefined ? 'NULL' : d.literal(to.default, to);
  const version = `${d.ident('version')} = ${d.ident('version')} + 1`;
  return [`UPDATE ${table} SET ${column} = ${fallback}, ${version} WHERE ${column} NOT IN (${values})`];
}

/**
 * SQLite's table rebuild: every row is copied; a value is converted, defaulted or dropped only as lossesOf says, and a
 * row whose values the copy changes gets its version incremented (a client's ETag of it is then stale).
 */
function rebuildStatements({ before, after, steps }: TableChange): string[] {
  const rebuilt = `${after.name}__rebuild`;
  // a renamed resource is renamed first, so the REFERENCES of other tables follow it to its new name: the rebuild
  // renames the copy, which no other table names
  const rename =
    before.name === after.name ? [] : [`ALTER TABLE ${d.ident(before.name)} RENAME TO ${d.ident(after.name)}`];
  // trigram indexes first: their FTS tables outlive the table, and are made again from the copied rows
  const trigrams = indexesOf(before)
    .filter((i) => i.trigram === true)
    .flatMap((i) => dropIndexStatements(before.name, i, d));
  if (before.id !== after.id) {
    return [...trigrams, ...rename, `DROP TABLE ${d.ident(after.name)}`, ...createTableWithIndexes(after, d)];
  }
  const sourceOf = (column: ColumnSnapshot): ColumnSnapshot | undefined => {
    const renamed = steps.find((s) => s.kind === 'renameColumn' && s.to === column.name);
    const name = renamed?.kind === 'renameColumn' ? renamed.from : column.name;
    return before.columns.find((c) => c.name === name);
  };
  const filters: string[] = [];
  // a row whose stored value the copy changes (converted, defaulted) gets a new version: its ETag changes
  const changed: string[] = [];
  const values = after.columns.map((column) => {
    const source = sourceOf(column);
    if (source === undefined) {
      if (column.notNull && column.default === undefined) filters.push('FALSE');
      return column.default === undefined ? 'NULL' : d.literal(column.default, column);
    }
    const loss = columnLoss(after.name, source, column);
    const value = d.ident(source.name);
    if (loss?.deletes === 'null') filters.push(`${value} IS NOT NULL`);
    if (loss?.deletes === 'unreferenced' && column.ref !== undefined) {
      filters.push(`(${value} IS NULL OR ${value} IN (SELECT ${d.ident('id')} FROM ${d.ident(column.ref.table)}))`);
    }
    const converted = convert(source, column);
    // a value that is not a date, datetime or uuid leaves a required field with no default empty: its row goes
    if (loss?.deletes === 'unconverted') filters.push(`${converted} IS NOT NULL`);
    // a value of another type in JSON (SQLite's comparison would take '42' and 42 as one); else, one the copy changes
    if (jsonKind(source.type) !== jsonKind(column.type)) changed.push(`${value} IS NOT NULL`);
    if (converted !== value) changed.push(`${converted} IS NOT ${value}`);
    return converted;
  });
  const version =
    changed.length === 0
      ? d.ident('version')
      : `${d.ident('version')} + (CASE WHEN ${changed.join(' OR ')} THEN 1 ELSE 0 END)`;
  const system = ['created_at', 'updated_at'].map((c) => d.ident(c));
  const targetColumns = [d.ident('id'), ...after.columns.map((c) => d.ident(c.name)), ...system, d.ident('version')];
  const where = filters.length === 0 ? '' : ` WHERE ${filters.join(' AND ')}`;
  return [
    ...trigrams,
    ...rename,
    createTable(after, d, rebuilt),
    `INSERT INTO ${d.ident(rebuilt)} (${targetColumns.join(', ')}) SELECT ${[d.ident('id'), ...values, ...system, version].join(', ')} FROM ${d.ident(after.name)}${where}`,
    `DROP TABLE ${d.ident(after.name)}`,
    `ALTER TABLE ${d.ident(rebuilt)} RENAME TO ${d.ident(after.name)}`,
    ...indexesOf(after).flatMap((i) => indexStatements(after, i, d)),
  ];
}

/** What a value of a field type is in JSON: a number, a boolean, a JSON value, or a string (every other type). */
const jsonKind = (type: string): string =>
  type === 'integer' || type === 'number' ? 'number' : type === 'boolean' || type === 'json' ? type : 'string';

/** The expression that carries a stored value into the rebuilt column. */
function convert(from: ColumnSnapshot, to: ColumnSnapshot): string {
  const fallback = to.default === undefined ? 'NULL' : d.literal(to.default, to);
  const value = carried(from, to, fallback);
  return to.notNull && !from.notNull && to.default !== undefined ? `coalesce(${value}, ${fallback})` : value;
}

/** A stored value in the new type, or `fallback` where it has no place there; NULL stays NULL. */
function carried(from: ColumnSnapshot, to: ColumnSnapshot, fallback: string): string {
  const column = d.ident(from.name);
  // an enum widened keeps every value; else a value that is not one of its values takes the fallback
  if (keepsEnumValues(from, to)) return column;
  if (to.type === 'enum') {
    const values = (to.values ?? []).map((v) => d.literal(v, to)).join(', ');
    return `CASE WHEN ${column} IS NULL OR ${column} IN (${values}) THEN ${column} ELSE ${fallback} END`;
  }
  if (checksValues(from, to)) {
    return `CASE WHEN ${column} IS NULL THEN NULL ELSE ${orFallback(sqliteChecked(from, to, column), fallback)} END`;
  }
  const target = d.columnType(to);
  return d.columnType(from) === target ? column : `CAST(${column} AS ${target})`;
}

const orFallback = (value: string, fallback: string): string =>
  fallback === 'NULL' ? value : `coalesce(${value}, ${fallback})`;
