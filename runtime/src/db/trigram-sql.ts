import type { Dialect, SqlValue } from './database.js';
import type { ListFilterShape, ListShape, Operator } from './list-sql.js';

/**
 * `contains` on a column with `index: trigram` (see list-sql.ts): the index finds the candidate rows, the exact
 * condition (list-sql.ts, CONTAINS) keeps those that match, so the answers are the same with or without the index.
 */

/** Where SQLite keeps a column's trigram index (the generator's schema/trigram.ts makes them; PostgreSQL's is GIN). */
export interface TrigramIndex {
  /** the FTS5 table, whose rowid is the record's integer id, or its key in `keys` */
  table: string;
  /** for text ids: the table of `id` ↔ `key`, the FTS5 rowid */
  keys?: string;
}

/**
 * Whether a trigram index serves a `contains` of `value`: one without a trigram (fewer than 3 characters, or none of
 * its trigrams without a NUL, which an FTS5 query cannot hold) keeps the exact condition alone (a different shape).
 * Characters are code points, as FTS5's and pg_trgm's.
 */
export function servedByTrigram(
  column: { trigram?: TrigramIndex },
  op: Operator,
  value: SqlValue | undefined,
): boolean {
  if (op !== 'contains' || column.trigram === undefined || typeof value !== 'string') return false;
  if (value.includes('\0')) return trigramsOf(value).length > 0;
  if (value.length >= 6) return true;
  let count = 0;
  for (const _ of value) if (++count >= 3) return true;
  return false;
}

/**
 * At most this many of a value's trigrams make its FTS5 query. Every row that holds the value holds each of them, so
 * any few find all its rows (the exact condition drops the others), and a long value costs no more than a short one:
 * as one phrase of all its trigrams, 1,000 `x` took FTS5 3 s over 20,000 rows of 170 `x` (it tries each position).
 */
const MAX_TRIGRAMS = 16;

/** The distinct trigrams of a value, in code points as FTS5's tokenizer reads them, but those that hold a NUL. */
function trigramsOf(value: string): string[] {
  const chars = Array.from(value);
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) {
    const trigram = chars.slice(i, i + 3).join('');
    if (!trigram.includes('\0')) trigrams.add(trigram);
  }
  return [...trigrams];
}

/** An FTS5 query of up to MAX_TRIGRAMS of a value's trigrams, spread over it, ANDed: each a string, `"` doubled. */
function ftsQuery(value: string): string {
  const all = trigramsOf(value);
  const step = Math.max(1, all.length / MAX_TRIGRAMS);
  const terms: string[] = [];
  for (let i = 0; i < all.length && terms.length < MAX_TRIGRAMS; i += step)
    terms.push(`"${(all[Math.floor(i)] ?? '').replaceAll('"', '""')}"`);
  return terms.join(' AND ');
}

/**
 * The characters of a value (code points) in PostgreSQL's LIKE pattern: a row that holds the value holds its start,
 * and LIKE, which PostgreSQL checks on every row the GIN index yields, costs each the pattern's length times the
 * text's: a pattern of 1,000 `x` took 350 ms over 20,000 rows of 170 `x` (the exact condition alone: 9 ms).
 */
const MAX_PATTERN = 32;

/** A LIKE pattern of the start of a value: `%`, `_` and `\` escaped (`\` is LIKE's escape). */
function likePattern(value: string): string {
  const start = value.length <= MAX_PATTERN ? value : Array.from(value).slice(0, MAX_PATTERN).join('');
  return `%${start.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * The index's query of a value: on SQLite an FTS5 query of its trigrams (see ftsQuery: every character of a string
 * but `"` is a character of it), on PostgreSQL a LIKE pattern of its start (see likePattern).
 */
export const trigramQuery = (value: string, dialect: Dialect): string =>
  dialect === 'sqlite' ? ftsQuery(value) : likePattern(value);

const q = (identifier: string): string => `"${identifier}"`;

/**
 * What a trigram index answers, before the exact condition: `id` names the record's id. SQLite: the rows whose
 * FTS5 trigrams hold the query's; its tokenizer folds the case of every letter (not ASCII only) and keeps diacritics,
 * so it finds every row the exact condition does, and maybe more. PostgreSQL: a LIKE on lower(column), the expression
 * of the GIN index, its pattern lowered as the exact condition lowers the value.
 */
export const TRIGRAM: Record<
  Dialect,
  (index: TrigramIndex, column: string, query: string, id: string) => string
> = {
  sqlite: (index, _column, query, id) => {
    const fts = q(index.table);
    const rows = `SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${query}`;
    return index.keys === undefined
      ? `${id} IN (${rows})`
      : `${id} IN (SELECT ${q('id')} FROM ${q(index.keys)} WHERE ${q('key')} IN (${rows}))`;
  },
  postgres: (_index, column, query) => `lower(${column}) LIKE lower(${query} COLLATE "C")`,
};

/**
 * The filter whose FTS5 table a SQLite page is read from, in rowid order: a trigram contains on the listed table's
 * own column, whose rowids are its integer ids, in a listing sorted by id alone (the default). FTS5 yields its
 * matches in rowid order as they are asked for, so the page stops at its limit: as `id IN (SELECT rowid …)`, a
 * value that most records hold would collect them all first (215 ms at 200,000 records, 0.2 ms so).
 */
export function drivingTrigram(shape: ListShape): ListFilterShape | undefined {
  const [sort, ...others] = shape.sort;
  if (sort?.column.column !== 'id' || others.length > 0) return undefined;
  return shape.filters.find(
    (f) =>
      f.trigram === true &&
      f.column.trigram !== undefined &&
      f.column.trigram.keys === undefined &&
      (f.via === undefined || f.via.length === 0),
  );
}

/** The alias of the FTS5 table a page is read from (see drivingTrigram), which its MATCH and keyset name. */
export const FTS = 'restsmith_fts';

/**
 * A page read from the FTS5 table in rowid order (the ids'), stopping at its end. `where` (its conditions name the
 * listed table's columns with the table: an FTS5 table has `rank` and `rowid` too) holds the MATCH; the join gives
 * the listed table's columns only, and the rowid under a name no column has.
 */
export function fromFts(
  table: string,
  index: TrigramIndex,
  selectList: string,
  where: string,
  descending: boolean,
  limit: string,
): string {
  const rowid = q('restsmith-rowid');
  const joined =
    `SELECT ${q(table)}.*, ${q(FTS)}.rowid AS ${rowid} FROM ${q(index.table)} AS ${q(FTS)} ` +
    `JOIN ${q(table)} ON ${q(table)}.${q('id')} = ${q(FTS)}.rowid${where}`;
  return `SELECT ${selectList} FROM (${joined}) AS ${q(table)} ORDER BY ${rowid} ${descending ? 'DESC' : 'ASC'} LIMIT ${limit}`;
}
