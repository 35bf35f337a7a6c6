import { setBounded } from '../bounded.js';
import type { Row, SqlValue } from './database.js';

/** A function that makes a row's object from its values, in the order of the columns it was made for. */
export type RowMaker = (values: readonly SqlValue[]) => Row;

/** how many column lists the functions are kept for: the ones made first are dropped first */
const KEPT = 500;
/** the longest list kept, as JSON: SQLite names a column that has no alias by its expression's whole text */
const KEPT_LENGTH = 4096;
const made = new Map<string, RowMaker>();

/**
 * The function that makes the rows of statements that return the columns `names`: an object literal of the columns
 * (`new Function`, as ajv and fast-json-stringify write their validators and serialisers). One loop of keyed stores
 * shared by every statement (better-sqlite3's object rows, pg's) sees every statement's columns and goes megamorphic:
 * each column of each row is then a lookup in V8's megamorphic cache, often a call into its runtime. The text holds
 * nothing but each name as a JSON string (`__proto__` as a computed key, so that it stays a column) and the index of
 * its value; a name given twice keeps its last value, as both drivers do.
 *
 * Statements that return the same columns (a resource's read, insert, update and listing) share one function, so
 * that V8 sees one shape there and compiles it once; the functions of the last 500 column lists (of up to 4 KB of
 * names) are kept, so code of yours that prepares statements as it goes neither compiles a function each time (tens
 * of microseconds) nor keeps every one it made.
 */
export function rowMaker(names: readonly string[]): RowMaker {
  const key = JSON.stringify(names);
  const known = made.get(key);
  if (known !== undefined) return known;
  const fields = names.map((name, i) => {
    const quoted = JSON.stringify(name);
    return `${name === '__proto__' ? `[${quoted}]` : quoted}: values[${i}] ?? null`;
  });
  const make = new Function('values', `return { ${fields.join(', ')} };`) as RowMaker;
  if (key.length > KEPT_LENGTH) return make;
  setBounded(made, key, make, KEPT);
  return make;
}
