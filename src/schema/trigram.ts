import type { IdKind } from '../model.js';
import type { SqlDialect } from './dialect.js';

/** The trigram index of a column: an FTS5 table on SQLite, a GIN index on PostgreSQL. */
export const trigramTable = (table: string, column: string): string => `${table}_${column}_trgm`;

/** On SQLite, for a table whose ids are text: the FTS5 table's integer rowid (`key`) of each id. */
export const trigramKeysTable = (table: string, column: string): string => `${trigramTable(table, column)}_keys`;

/**
 * The trigram index of a text column (`index: trigram`), which serves `contains` (see runtime/src/db/list-sql.ts).
 *
 * PostgreSQL: a GIN index of pg_trgm over lower(column), the expression the listing's LIKE reads.
 *
 * SQLite: a contentless FTS5 table with the trigram tokenizer (it keeps the index only, not a copy of the text), kept
 * by triggers on the table in the transaction of every write, filled from the existing rows when it is made. Its
 * rowid is the record's: the id itself for integer ids; for text ids an integer key of a keys table (`id` ↔ `key`),
 * since the implicit rowid of a table without an INTEGER PRIMARY KEY may change in a VACUUM.
 */
/** What each PostgreSQL trigram index needs first (see extensionOnce). */
const PG_TRGM = 'CREATE EXTENSION IF NOT EXISTS pg_trgm';

/** Statements with pg_trgm's CREATE EXTENSION once, where it first comes: each trigram index's statements say it. */
export const extensionOnce = (statements: readonly string[]): string[] =>
  statements.filter((s, i) => s !== PG_TRGM || statements.indexOf(s) === i);

export function trigramStatements(table: string, column: string, idKind: IdKind, d: SqlDialect): string[] {
  const name = trigramTable(table, column);
  if (d.name === 'postgres') {
    return [
      PG_TRGM,
      `CREATE INDEX ${d.ident(name)} ON ${d.ident(table)} USING gin (lower(${d.ident(column)}) gin_trgm_ops)`,
    ];
  }
  const [fts, t, c] = [d.ident(name), d.ident(table), d.ident(column)];
  const trigger = (suffix: string): string => d.ident(`${name}_${suffix}`);
  const create =
    `CREATE VIRTUAL TABLE ${fts} USING fts5("value", content='', contentless_delete=1, ` +
    `tokenize='trigram case_sensitive 0 remove_diacritics 0')`;
  if (idKind === 'integer') {
    return [
      create,
      `CREATE TRIGGER ${trigger('insert')} AFTER INSERT ON ${t} WHEN new.${c} IS NOT NULL BEGIN ` +
        `INSERT INTO ${fts} (rowid, "value") VALUES (new."id", new.${c}); END`,
      `CREATE TRIGGER ${trigger('delete')} AFTER DELETE ON ${t} WHEN old.${c} IS NOT NULL BEGIN ` +
        `DELETE FROM ${fts} WHERE rowid = old."id"; END`,
      `CREATE TRIGGER ${trigger('update')} AFTER UPDATE OF ${c} ON ${t} BEGIN ` +
        `DELETE FROM ${fts} WHERE rowid = old."id" AND old.${c} IS NOT NULL; ` +
        `INSERT INTO ${fts} (rowid, "value") SELECT new."id", new.${c} WHERE new.${c} IS NOT NULL; END`,
      `INSERT INTO ${fts} (rowid, "value") SELECT "id", ${c} FROM ${t} WHERE ${c} IS NOT NULL`,
    ];
  }
  const keys = d.ident(trigramKeysTable(table, column));
  const keyOf = (row: 'old' | 'new'): string => `(SELECT "key" FROM ${keys} WHERE "id" = ${row}."id")`;
  return [
    create,
    `CREATE TABLE ${keys} ("key" INTEGER PRIMARY KEY, "id" TEXT NOT NULL UNIQUE)`,
    `CREATE TRIGGER ${trigger('insert')} AFTER INSERT ON ${t} BEGIN ` +
      `INSERT INTO ${keys} ("id") VALUES (new."id"); ` +
      `INSERT INTO ${fts} (rowid, "value") SELECT ${keyOf('new')}, new.${c} WHERE new.${c} IS NOT NULL; END`,
    `CREATE TRIGGER ${trigger('delete')} AFTER DELETE ON ${t} BEGIN ` +
      `DELETE FROM ${fts} WHERE rowid = ${keyOf('old')} AND old.${c} IS NOT NULL; ` +
      `DELETE FROM ${keys} WHERE "id" = old."id"; END`,
    `CREATE TRIGGER ${trigger('update')} AFTER UPDATE OF ${c} ON ${t} BEGIN ` +
      `DELETE FROM ${fts} WHERE rowid = ${keyOf('old')} AND old.${c} IS NOT NULL; ` +
      `INSERT INTO ${fts} (rowid, "value") SELECT ${keyOf('new')}, new.${c} WHERE new.${c} IS NOT NULL; END`,
    `INSERT INTO ${keys} ("id") SELECT "id" FROM ${t}`,
    `INSERT INTO ${fts} (rowid, "value") SELECT k."key", t.${c} FROM ${t} AS t JOIN ${keys} AS k ON k."id" = t."id" ` +
      `WHERE t.${c} IS NOT NULL`,
  ];
}

/** What trigramStatements made, dropped (the triggers too: they outlive a virtual table, not their own table). */
export function dropTrigramStatements(table: string, column: string, d: SqlDialect): string[] {
  const name = trigramTable(table, column);
  if (d.name === 'postgres') return [`DROP INDEX IF EXISTS ${d.ident(name)}`];
  return [
    ...['insert', 'delete', 'update'].map((suffix) => `DROP TRIGGER IF EXISTS ${d.ident(`${name}_${suffix}`)}`),
    `DROP TABLE IF EXISTS ${d.ident(name)}`,
    `DROP TABLE IF EXISTS ${d.ident(trigramKeysTable(table, column))}`,
  ];
}
