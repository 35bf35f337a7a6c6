import {
  columnDefinition,
  createTable,
  dependencyOrder,
  dropIndexStatements,
  foreignKeyName,
  indexesOf,
  indexKey,
  indexStatements,
  referencesClause,
} from '../schema/ddl.js';
import { postgres as d } from '../schema/dialect.js';
import { extensionOnce } from '../schema/trigram.js';
import { checksValues, keepsEnumValues, postgresChecked } from './checked-values.js';
import { columnLoss } from './data-loss.js';
import type { Diff, Step, TableChange } from './diff.js';
import type { ColumnSnapshot, Snapshot, TableSnapshot } from '../schema/snapshot.js';

/**
 * The PostgreSQL statements of a migration, from the same diff as SQLite's. PostgreSQL alters tables in place
 * (and in one transaction with the rest of the migration), so no table is ever rebuilt; a value is converted,
 * defaulted or deleted where the SQLite migration would do the same (see data-loss.ts). `after` is the whole data
 * model after the migration: rows another table refers to are never deleted (the migration fails instead, as
 * SQLite's foreign key check makes it fail), since PostgreSQL would cascade.
 */
export function postgresMigration(diff: Diff, after: Snapshot): string[] {
  const changed = dependencyOrder(diff.changed.map((c) => c.after)).flatMap((table) =>
    diff.changed.filter((c) => c.after === table),
  );
  const changes = changed.flatMap((change) => changeStatements(change, after));
  const dropped = diff.dropped.map((t) => d.ident(t.name));
  return extensionOnce([
    ...(changes.some((s) => s.includes('pg_temp.restsmith_try_cast')) ? [TRY_CAST] : []),
    ...createTables(dependencyOrder(diff.created)),
    ...changes,
    // in one statement: dropped tables may refer to each other
    ...(dropped.length === 0 ? [] : [`DROP TABLE ${dropped.join(', ')}`]),
  ]);
}

/** Tables, then their foreign keys: tables may refer to each other. */
function createTables(tables: readonly TableSnapshot[]): string[] {
  return [
    ...tables.flatMap((table) => [
      createTable(table, d, table.name, false),
      ...indexesOf(table).flatMap((i) => indexStatements(table, i, d)),
    ]),
    ...tables.flatMap((table) =>
      table.columns.flatMap((c) => (c.ref === undefined ? [] : [addForeignKey(table.name, c)])),
    ),
  ];
}

function addForeignKey(table: string, column: ColumnSnapshot): string {
  const ref = column.ref;
  if (ref === undefined) throw new Error(`${table}.${column.name} is not a ref`);
  return (
    `ALTER TABLE ${d.ident(table)} ADD CONSTRAINT ${d.ident(foreignKeyName(table, column.name))} ` +
    `FOREIGN KEY (${d.ident(column.name)}) ${referencesClause(ref, d)}`
  );
}

/**
 * Deletes the rows of `table` that match `where`, refusing (the migration fails, the database is unchanged) when
 * another row refers to one of them: SQLite migrates with foreign keys off and its check refuses the same.
 */
function deleteRows(table: string, where: string, after: Snapshot): string[] {
  const referring = after.tables.flatMap((t) =>
    t.columns.filter((c) => c.ref?.table === table).map((c) => ({ table: t.name, column: c.name })),
  );
  const selected = `SELECT ${d.ident('id')} FROM ${d.ident(table)} WHERE ${where}`;
  return [
    ...referring.map(
      (r) =>
        `DO $$ BEGIN IF EXISTS (SELECT 1 FROM ${d.ident(r.table)} WHERE ${d.ident(r.column)} IN (${selected})) THEN ` +
        `RAISE EXCEPTION 'it would delete ${table} records that ${r.table}.${r.column} refers to'; END IF; END $$`,
    ),
    `DELETE FROM ${d.ident(table)} WHERE ${where}`,
  ];
}

/** A conversion that gives NULL (then the default) where SQLite's lenient CAST would store a meaningless value. */
const TRY_CAST = `CREATE OR REPLACE FUNCTION pg_temp.restsmith_try_cast(value text, target anyelement) RETURNS anyelement
LANGUAGE plpgsql AS $$
DECLARE
  result target%TYPE;
BEGIN
  EXECUTE format('SELECT %L::%s', value, pg_typeof(target)) INTO result;
  RETURN result;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$`;

function changeStatements(change: TableChange, after: Snapshot): string[] {
  const { before, steps } = change;
  const table = d.ident(change.after.name);
  if (before.id !== change.after.id) {
    // every record is deleted (a data loss --allow-data-loss accepted); foreign keys to it go with it
    return [`DROP TABLE ${d.ident(before.name)} CASCADE`, ...createTables([change.after])];
  }
  // a renamed resource: foreign keys follow the table (they name none); its own are renamed to stay findable by
  // name, its indexes (named after the table) are made again below
  const renamed =
    before.name === change.after.name
      ? []
      : [
          `ALTER TABLE ${d.ident(before.name)} RENAME TO ${table}`,
          ...before.columns
            .filter((c) => c.ref !== undefined)
            .map(
              (c) =>
                `ALTER TABLE ${table} RENAME CONSTRAINT ${d.ident(foreignKeyName(before.name, c.name))} TO ` +
                d.ident(foreignKeyName(change.after.name, c.name)),
            ),
        ];
  const key = indexKey;
  const oldIndexes = indexesOf(before);
  const newIndexes = indexesOf(change.after);
  return [
    ...renamed,
    ...oldIndexes
      .filter((i) => !newIndexes.some((n) => key(n) === key(i)))
      .flatMap((i) => dropIndexStatements(change.after.name, i, d)),
    ...steps.flatMap((step) => stepStatements(change.after.name, step, before.columns, after)),
    ...newIndexes
      .filter((i) => !oldIndexes.some((o) => key(o) === key(i)))
      .flatMap((i) => indexStatements(change.after, i, d)),
  ];
}

function stepStatements(
  tableName: string,
  step: Step,
  columnsBefore: readonly ColumnSnapshot[],
  after: Snapshot,
): string[] {
  const table = d.ident(tableName);
  switch (step.kind) {
    case 'renameColumn': {
      const hadForeignKey = columnsBefore.some((c) => c.name === step.from && c.ref !== undefined);
      const [from, to] = [foreignKeyName(tableName, step.from), foreignKeyName(tableName, step.to)];
      return [
        `ALTER TABLE ${table} RENAME COLUMN ${d.ident(step.from)} TO ${d.ident(step.to)}`,
        ...(hadForeignKey ? [`ALTER TABLE ${table} RENAME CONSTRAINT ${d.ident(from)} TO ${d.ident(to)}`] : []),
      ];
    }
    case 'addColumn':
      // a required column without a default cannot hold the existing rows: they are deleted (a stated data loss)
      return [
        ...(step.column.notNull && step.column.default === undefined ? deleteRows(tableName, 'TRUE', after) : []),
        `ALTER TABLE ${table} ADD COLUMN ${columnDefinition(step.column, d, tableName)}`,
      ];
    case 'dropColumn':
      return [`ALTER TABLE ${table} DROP COLUMN ${d.ident(step.column.name)}`];
    case 'alterColumn':
      return alterColumn(tableName, step.from, step.to, after);
    default:
      return [];
  }
}

/** One column changed in place: foreign key, type (with the conversion SQLite's rebuild uses), default, NULLs. */
function alterColumn(tableName: string, from: ColumnSnapshot, to: ColumnSnapshot, after: Snapshot): string[] {
  const table = d.ident(tableName);
  const column = d.ident(to.name);
  const alter = `ALTER TABLE ${table} ALTER COLUMN ${column}`;
  const fallback = to.default === undefined ? 'NULL' : d.literal(to.default, to);
  const statements: string[] = [];
  const refChanged = JSON.stringify(from.ref) !== JSON.stringify(to.ref);
  if (from.ref !== undefined && refChanged) {
    // by its name before and after a rename in the same migration (the rename step renamed it)
    for (const name of new Set([from.name, to.name])) {
      statements.push(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${d.ident(foreignKeyName(tableName, name))}`);
    }
  }
  const typeChanged = d.columnType(from) !== d.columnType(to);
  // a conversion may give NULL: NOT NULL comes back after the values are filled in or their rows deleted
  if (from.notNull && (typeChanged || !to.notNull)) statements.push(`${alter} DROP NOT NULL`);
  // the default goes before a conversion (it may not convert), and comes back after; one that stays is left alone
  const defaultKept = !typeChanged && JSON.stringify(from.default) === JSON.stringify(to.default);
  if (from.default !== undefined && !defaultKept) statements.push(`${alter} DROP DEFAULT`);
  // a row whose stored value changes gets a new version (a client's ETag of it is then stale): every row that holds a
  // value of a column whose type changes (converted, it may be another value, another type in JSON, or null), counted
  // before the conversion; an integer widened to a number is the same number
  const version = `${d.ident('version')} = ${d.ident('version')} + 1`;
  if (typeChanged) {
    if (!(from.type === 'integer' && to.type === 'number'))
      statements.push(`UPDATE ${table} SET ${version} WHERE ${column} IS NOT NULL`);
    // by its name now: a rename in the same migration has run (stepStatements, renameColumn)
    statements.push(`${alter} TYPE ${d.columnType(to)} USING ${converted({ ...from, name: to.name }, to)}`);
  }
  if (checksValues(from, to) && !typeChanged) {
    // text stays text (a string made a date or a uuid): the values without the shape are replaced, or their rows go
    const value = checked(from, to, column);
    const unshaped = `${column} IS NOT NULL AND ${value} IS DISTINCT FROM ${column}`;
    if (to.notNull && to.default === undefined) statements.push(...deleteRows(tableName, unshaped, after));
    else statements.push(`UPDATE ${table} SET ${column} = ${value}, ${version} WHERE ${unshaped}`);
  }
  // an enum widened (or a value added and the same type) keeps every stored value: no row to look at
  if (to.type === 'enum' && !keepsEnumValues(from, to)) {
    const values = (to.values ?? []).map((v) => d.literal(v, to)).join(', ');
    statements.push(`UPDATE ${table} SET ${column} = ${fallback}, ${version} WHERE ${column} NOT IN (${values})`);
  }
  if (to.default !== undefined && !defaultKept) statements.push(`${alter} SET DEFAULT ${fallback}`);
  const loss = columnLoss(tableName, from, to);
  if (to.notNull && (!from.notNull || typeChanged)) {
    if (to.default !== undefined)
      statements.push(`UPDATE ${table} SET ${column} = ${fallback}, ${version} WHERE ${column} IS NULL`);
    else statements.push(...deleteRows(tableName, `${column} IS NULL`, after));
    statements.push(`${alter} SET NOT NULL`);
  }
  if (to.ref !== undefined && refChanged) {
    if (loss?.deletes === 'unreferenced') {
      const unreferenced = `${column} IS NOT NULL AND ${column} NOT IN (SELECT ${d.ident('id')} FROM ${d.ident(to.ref.table)})`;
      statements.push(...deleteRows(tableName, unreferenced, after));
    }
    statements.push(addForeignKey(tableName, to));
  }
  return statements;
}

/**
 * The expression that carries a stored value into the new type, as SQLite's CAST does: numbers and booleans that do
 * not convert become 0 (false), text keeps any value, NULL stays NULL; other values that do not convert become NULL.
 */
function converted(from: ColumnSnapshot, to: ColumnSnapshot): string {
  const column = d.ident(from.name);
  const target = d.columnType(to).replace(' COLLATE "C"', '');
  if (checksValues(from, to)) return checked(from, to, column);
  if (target === 'TEXT') {
    // as SQLite stores them: datetimes in ISO 8601 UTC, booleans as 0/1, JSON as its text
    if (from.type === 'datetime') return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    if (from.type === 'boolean') return `${column}::int::text`;
    return `${column}::text`;
  }
  if (from.type === 'boolean') return `${column}::int::${target}`;
  if (to.type === 'boolean' && (from.type === 'integer' || from.type === 'number')) return `(${column} <> 0)`;
  if (from.type === 'number' && to.type === 'integer') return `trunc(${column})::${target}`;
  if (from.type === 'integer' && to.type === 'number') return `${column}::${target}`;
  const attempt = `pg_temp.restsmith_try_cast(${column}::text, NULL::${target})`;
  const zero = { BIGINT: '0', 'DOUBLE PRECISION': '0', BOOLEAN: 'FALSE' }[target];
  return zero === undefined ? attempt : `CASE WHEN ${column} IS NULL THEN NULL ELSE coalesce(${attempt}, ${zero}) END`;
}

/** A value made a date, datetime or uuid (checked-values.ts): its default, or NULL, where it has not the shape. */
function checked(from: ColumnSnapshot, to: ColumnSnapshot, column: string): string {
  const value = postgresChecked(from, to, column, (text, type) => `pg_temp.restsmith_try_cast(${text}, NULL::${type})`);
  const fallback = to.default === undefined ? undefined : d.literal(to.default, to);
  return fallback === undefined
    ? value
    : `CASE WHEN ${column} IS NULL THEN NULL ELSE coalesce(${value}, ${fallback}) END`;
}
