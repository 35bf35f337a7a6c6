import type { Database, Dialect, SqlValue, Statement } from '../db/database.js';
import type { RelationLink, RelationTarget } from './embed.js';

/**
 * Statements written on first use and prepared once: their texts are shapes the generator's relations make (a few per
 * relation, whatever the request), never a client's, so the cache stays small.
 */
export class Statements {
  readonly #prepared = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  of(sql: string): Statement {
    let statement = this.#prepared.get(sql);
    if (statement === undefined) {
      statement = this.db.prepareText(sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }
}

/** The pieces of SQL that embedding and links write, per dialect (identifiers are the generator's, never a client's). */
export const q = (identifier: string): string => `"${identifier}"`;

/**
 * The condition that a row of `target` is `value`'s: one of its owner columns holds it (a target is only ever scoped
 * to an owner when it has owner columns, see readScope). `next` writes each column's parameter, in text order.
 */
export function ownedBy(
  target: RelationTarget,
  value: SqlValue,
  next: (value: SqlValue, kind?: 'text' | 'integer') => string,
  alias = '',
): string {
  const owner = target.owner;
  if (owner === undefined) throw new Error(`${target.table} has no owner column`);
  const terms = owner.columns.map((column) => `${alias}${q(column)} = ${next(value, owner.kind)}`);
  return terms.length === 1 ? (terms[0] ?? '') : `(${terms.join(' OR ')})`;
}

/** The parameters of ownedBy: `value` once per owner column. */
export const ownerValues = (target: RelationTarget, value: SqlValue): SqlValue[] =>
  (target.owner?.columns ?? []).map(() => value);

/** Writes parameters numbered after those already in `params`, pushing their values onto it (see ownedBy). */
export function numbered(
  dialect: Dialect,
  params: SqlValue[],
): (value: SqlValue, kind?: 'text' | 'integer') => string {
  return (value, kind) => {
    params.push(value);
    return param(dialect, params.length, kind);
  };
}

/** The columns embedding reads of a target, as SQL. */
export const selectList = (target: RelationTarget): string => target.columns.map(q).join(', ');

export function param(dialect: Dialect, n: number, kind: 'text' | 'integer' = 'text'): string {
  if (dialect === 'sqlite') return '?';
  return `$${n}::${kind === 'integer' ? 'bigint' : 'text'}`;
}

/** The values of a JSON array parameter, as a subquery `IN` takes. */
export function inList(dialect: Dialect, kind: 'text' | 'integer', n: number): string {
  if (dialect === 'sqlite') return 'SELECT value FROM json_each(?)';
  return `SELECT value::${kind === 'integer' ? 'bigint' : 'text'} FROM jsonb_array_elements_text($${n}::jsonb) AS value`;
}

/**
 * Rows read as values (the id first) in id order (integers as numbers, UUIDs as text: both compare as the databases
 * order them).
 */
export const byId = (a: readonly SqlValue[], b: readonly SqlValue[]): number => {
  const [x, y] = [a[0], b[0]];
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
};

/**
 * The one statement of an embedded to-many relation: for every parent key (a JSON array), its first `rows` related
 * records in id order, those the caller may read (`scope`; `joinScope` for the links of a many-to-many relation).
 * Each row carries its parent's key in `parentColumn`; rows come grouped by parent, each group sorted by the caller.
 *
 * A ref column is indexed as `(column, id)`: on SQLite, the cut of each parent's page is the id `rows` deep in
 * that index (a bounded walk per parent); on PostgreSQL a LATERAL walk of it per parent, LIMIT the page; through a
 * join table, ROW_NUMBER() per parent.
 */
export function toManySql(
  d: Dialect,
  link: RelationLink,
  target: RelationTarget,
  keys: string,
  keyKind: 'text' | 'integer',
  options: {
    scope: null | SqlValue;
    join?: RelationTarget;
    joinScope: false | null | SqlValue;
    rows: number;
  },
): { sql: string; params: SqlValue[]; parentColumn: string } {
  const params: SqlValue[] = [keys];
  const next = numbered(d, params);
  const { scope, join, joinScope } = options;
  const owned = (alias = ''): string => (scope === null ? '' : ` AND ${ownedBy(target, scope, next, alias)}`);
  if ((link.through === undefined || join === undefined) && d === 'sqlite') {
    const fk = q(link.column);
    const x = q('rs_x');
    // text order is parameter order on SQLite: the keys, the cut's owner and depth, then the row's owner
    const cut =
      `(SELECT ${x}.${q('id')} FROM ${q(target.table)} AS ${x} WHERE ${x}.${fk} = ${q('rs_key')}${owned(`${x}.`)} ` +
      `ORDER BY ${x}.${q('id')} LIMIT 1 OFFSET ${next(options.rows - 1, 'integer')})`;
    // a parent with fewer rows has no cut: a BLOB sorts after every integer and text id. The bound must not name
    // `id` itself (`COALESCE(cut, id)`), else it bounds no index range and every row of a parent is read, each with
    // the cut again: 500 ms on the HTTP thread for 10 parents of 30,000 rows, against 0.2 ms so
    const sql =
      `SELECT ${selectList(target)} FROM (SELECT value AS ${q('rs_key')} FROM json_each(?)) AS ${q('rs_keys')} ` +
      `JOIN ${q(target.table)} ON ${fk} = ${q('rs_key')} WHERE ${q('id')} <= COALESCE(${cut}, x'')${owned()}`;
    return { sql, params, parentColumn: link.column };
  }
  if (link.through === undefined || join === undefined) {
    // per key, a walk of the (ref, id) index that stops at the page: ROW_NUMBER() over every child of every parent
    // took 2 s of a pooled connection for a parent of 300,000 children. The order names the ref too, which only that
    // index gives: ordered by id alone, the planner may walk the primary key instead, filtering out the other
    // parents' rows (all of them, for a parent of few), as it did in CI on a table of one big parent and one small
    const key = `${q('rs_keys')}.${q('value')}::${keyKind === 'integer' ? 'bigint' : 'text'}`;
    const sql =
      `SELECT ${q('rs_page')}.* FROM jsonb_array_elements_text($1::jsonb) AS ${q('rs_keys')} (${q('value')}) ` +
      `CROSS JOIN LATERAL (SELECT ${selectList(target)} FROM ${q(target.table)} ` +
      `WHERE ${q(link.column)} = ${key}${owned()} ` +
      `ORDER BY ${q(link.column)}, ${q('id')} LIMIT ${next(options.rows, 'integer')}) AS ${q('rs_page')}`;
    return { sql, params, parentColumn: link.column };
  }
  // through a join table: the target's rows that a link leads to, distinct pairs of the links the caller may read
  // (the links of a parent are indexed in their own id order, not the target's: each parent's are all read)
  const { near, far } = link.through;
  const ownLinks = joinScope === null || joinScope === false ? '' : ` AND ${ownedBy(join, joinScope, next)}`;
  const from =
    `${q(target.table)} JOIN (SELECT DISTINCT ${q(near)} AS ${q('rs_parent')}, ${q(far)} AS ${q('rs_far')} ` +
    `FROM ${q(join.table)} WHERE ${q(near)} IN (${inList(d, keyKind, 1)})${ownLinks}) AS ${q('rs_links')} ` +
    `ON ${q('id')} = ${q('rs_far')} WHERE TRUE`;
  const sql =
    `SELECT * FROM (SELECT ${selectList(target)}, ${q('rs_parent')}, ` +
    `ROW_NUMBER() OVER (PARTITION BY ${q('rs_parent')} ORDER BY ${q('id')}) AS ${q('rs_rank')} ` +
    `FROM ${from}${owned()}) AS ${q('ranked')} ` +
    `WHERE ${q('rs_rank')} <= ${next(options.rows, 'integer')}`;
  return { sql, params, parentColumn: 'rs_parent' };
}
