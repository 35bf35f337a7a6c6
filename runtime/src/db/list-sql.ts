import type { CostFacts } from './cost.js';
import type { Dialect, SqlValue } from './database.js';
import { drivingTrigram, FTS, fromFts, TRIGRAM, trigramQuery, type TrigramIndex } from './trigram-sql.js';

export { servedByTrigram, type TrigramIndex } from './trigram-sql.js';

/**
 * The SQL of listings (see http/listing.ts). A listing's text depends only on its shape: which filters with how
 * many values, the sort, which cursor values are NULL, and whether it is restricted to an owner. Values are always
 * parameters, in this order: owner (once per owner column), filter values (each filter's, then the owners of its hops from the last),
 * cursor values (see keysetParams), limit.
 */
export type Operator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'contains';

/** How a column's values are stored: datetimes as UTC instants, booleans as 0/1 (SQLite) or boolean (PostgreSQL). */
export type ValueKind = 'text' | 'datetime' | 'integer' | 'number' | 'boolean';

export interface ListColumn {
  column: string;
  kind: ValueKind;
  /**
   * the column never holds NULL (id, created_at, updated_at): its ORDER BY names no NULLS order, which PostgreSQL
   * needs to walk a default btree index in either direction instead of sorting the whole table
   */
  notNull?: boolean;
  /**
   * a unique email: eq, ne and in compare lower(column) with lower(value), the expression of its unique index (two
   * addresses that differ only in the case of ASCII letters are the same value; lower() folds ASCII letters only,
   * alike on SQLite and on PostgreSQL's "C" text)
   */
  folded?: boolean;
  /** `index: trigram`: a trigram index serves `contains` of 3 characters or more (see TRIGRAM) */
  trigram?: TrigramIndex;
}

/**
 * One step from the listed records to related ones: the filter holds for a record when its column `local` is
 * `IN (SELECT remote FROM table WHERE …)`, restricted to one owner's rows of `table` when `owner` is given.
 */
export interface Hop {
  local: string;
  table: string;
  remote: string;
  owner?: OwnerColumns;
}

/** The owner columns of a table, and the kind of their values: a row is an owner's when any of them holds it. */
export interface OwnerColumns {
  columns: readonly string[];
  kind: ValueKind;
}

/** The condition that a row is one owner's: `a = ?`, or `(a = ? OR b = ?)` (one parameter per column). */
export function ownedBy(
  owner: OwnerColumns,
  param: (kind: ValueKind) => string,
  name: (column: string) => string = q,
): string {
  const terms = owner.columns.map((column) => `${name(column)} = ${param(owner.kind)}`);
  return terms.length === 1 ? (terms[0] ?? '') : `(${terms.join(' OR ')})`;
}

/** The parameters of ownedBy: the owner's value once per column. */
export const ownerParams = (owner: OwnerColumns, value: SqlValue): SqlValue[] =>
  owner.columns.map(() => value);

export interface ListFilterShape {
  /** the column compared: of the listed table, or of the table of the last hop */
  column: ListColumn;
  op: Operator;
  via?: readonly Hop[];
  /** a `contains` its column's trigram index serves (see servedByTrigram): the index, then the exact condition */
  trigram?: true;
}

/**
 * The parameters of one filter, in the order of its condition: a trigram `contains` takes its value twice, as the
 * index's query (see trigramQuery: an FTS5 query of some of its trigrams on SQLite, a LIKE pattern on PostgreSQL)
 * and as the exact condition's value.
 */
export function filterParams(
  filter: ListFilterShape,
  values: readonly SqlValue[],
  dialect: Dialect,
): SqlValue[] {
  if (filter.op === 'in') return [JSON.stringify(values)];
  if (filter.trigram !== true) return [...values];
  const value = String(values[0] ?? '');
  return [trigramQuery(value, dialect), value];
}

export interface ListShape {
  /** the owner columns when the listing is restricted to one owner's records */
  owner?: OwnerColumns;
  /** in the canonical order of shapeKey: by filterKey */
  filters: ListFilterShape[];
  sort: { column: ListColumn; descending: boolean }[];
  /** for each sort key, whether the cursor's value is NULL; undefined on a first page */
  afterNulls?: boolean[];
}

/** A short key that tells shapes apart: statements are cached by it, so their text is written once per shape. */
export function shapeKey(shape: ListShape): string {
  const filters = shape.filters.map(filterKey).join(',');
  const sort = shape.sort.map((s) => `${s.descending ? '-' : ''}${s.column.column}`).join(',');
  const after = shape.afterNulls?.map((isNull) => (isNull ? '0' : '1')).join('') ?? '';
  return `${shape.owner?.columns.join('+') ?? ''}|${filters}|${sort}|${after}`;
}

/** What tells filters apart, and orders them: the hops to the column, the column, the operator. */
export function filterKey(filter: ListFilterShape): string {
  const via = (filter.via ?? [])
    .map((h) => `${h.local}>${h.table}.${h.remote}${h.owner ? '*' : ''}>`)
    .join('');
  return `${via}${filter.column.column}.${filter.op}${filter.trigram === true ? '~' : ''}`;
}

/**
 * `contains` is a substring match that ignores the case of ASCII letters only, on both databases: SQLite's lower()
 * folds ASCII only, and PostgreSQL's does the same under the "C" collation (of text columns, and asked for the value).
 */
const CONTAINS: Record<Dialect, (column: string, value: string) => string> = {
  sqlite: (column, value) => `instr(lower(${column}), lower(${value})) > 0`,
  postgres: (column, value) => `strpos(lower(${column}), lower(${value} COLLATE "C")) > 0`,
};

/** `column IN` the values of a JSON array parameter. */
const IN_LIST: Record<Dialect, (column: string, values: string, kind: ValueKind, folded: boolean) => string> =
  {
    sqlite: (column, values, _kind, folded) =>
      folded
        ? `lower(${column}) IN (SELECT lower(value) FROM json_each(${values}))`
        : `${column} IN (SELECT value FROM json_each(${values}))`,
    postgres: (column, values, kind, folded) =>
      folded
        ? `lower(${column}) IN (SELECT lower(value COLLATE "C") FROM jsonb_array_elements_text(${values}::jsonb) AS value)`
        : `${column} IN (SELECT value::${PG_TYPES[kind]} FROM jsonb_array_elements_text(${values}::jsonb) AS value)`,
  };

/** `column IN (the values of a JSON array bound to param)`, the array's values read as `kind`. */
export const inJsonArray = (dialect: Dialect, column: string, param: string, kind: ValueKind): string =>
  IN_LIST[dialect](column, param, kind, false);

/** PostgreSQL parameters carry their type: a query value is compared as its column's kind (its index is used). */
const PG_TYPES: Record<ValueKind, string> = {
  text: 'text',
  datetime: 'timestamptz',
  integer: 'bigint',
  number: 'double precision',
  boolean: 'boolean',
};

const COMPARISONS: Record<'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte', string> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

/**
 * A page's LIMIT. SQLite reads the value of a LIMIT that is a bare parameter when it plans the statement, and so
 * plans it again at every step after the parameter is bound, even to the same value: some 7 µs a page (SQLite 3.53,
 * better-sqlite3 12). As an expression the limit is read when the statement runs, and one plan serves every page.
 */
const LIMIT: Record<Dialect, (param: (kind: ValueKind) => string) => string> = {
  sqlite: (param) => `CAST(${param('integer')} AS INTEGER)`,
  postgres: (param) => param('integer'),
};

/**
 * The SELECT of one shape, in one dialect. A listing restricted to one of several owners (`owner: [a, b]`) is a
 * UNION of one ordered, limited SELECT per owner column, each walking its own `(column, id)` index from the cursor:
 * a page costs its limit per column, not every record of the caller (an OR would read and sort them all).
 */
export function listSql(table: string, selectList: string, shape: ListShape, dialect: Dialect): string {
  let n = 0;
  const param = (kind: ValueKind): string => (dialect === 'sqlite' ? '?' : `$${++n}::${PG_TYPES[kind]}`);
  const owner = shape.owner;
  if (owner === undefined || owner.columns.length === 1)
    return selectOf(table, selectList, shape, dialect, param);
  const branches = owner.columns.map((column, i) => {
    const one: ListShape = { ...shape, owner: { columns: [column], kind: owner.kind } };
    return `SELECT * FROM (${selectOf(table, selectList, one, dialect, param)}) AS ${q(`owner_${i}`)}`;
  });
  return `SELECT * FROM (${branches.join(' UNION ')}) AS ${q('owned')} ORDER BY ${orderOf(shape)} LIMIT ${LIMIT[dialect](param)}`;
}

/** What a shape's plan alone does not say of it (see cost.ts): the columns its conditions compare. */
export function costFacts(table: string, shape: ListShape): CostFacts {
  const conditions = [
    ...(shape.owner?.columns ?? []),
    ...shape.filters.map((f) => f.via?.[0]?.local ?? f.column.column),
    ...(shape.afterNulls === undefined ? [] : [shape.sort[0]?.column.column ?? 'id']),
  ];
  return { table, conditions };
}

/** The sort keys (`columns`) of one record of `table` by id: where a cursor that names its record continues. */
export function sortKeysSql(
  table: string,
  columns: readonly string[],
  idKind: ValueKind,
  dialect: Dialect,
): string {
  const param = dialect === 'sqlite' ? '?' : `$1::${PG_TYPES[idKind]}`;
  return `SELECT ${columns.map(q).join(', ')} FROM ${q(table)} WHERE ${q('id')} = ${param}`;
}

/**
 * The parameters of listSql, given the owner's value and the rest (filter values, cursor values, limit) in order:
 * with several owner columns, the rest once per column, each after its owner, then the limit again.
 */
export function listParams(
  owner: OwnerColumns | undefined,
  value: SqlValue | null,
  rest: readonly SqlValue[],
): SqlValue[] {
  if (owner === undefined || value === null) return [...rest];
  if (owner.columns.length === 1) return [value, ...rest];
  return [...owner.columns.flatMap(() => [value, ...rest]), rest[rest.length - 1] ?? null];
}

const orderOf = (shape: ListShape): string =>
  shape.sort.map((s) => `${q(s.column.column)} ${direction(s)}`).join(', ');

function selectOf(
  table: string,
  selectList: string,
  shape: ListShape,
  dialect: Dialect,
  param: (kind: ValueKind) => string,
): string {
  // a page by id with a trigram contains on SQLite: read from the FTS5 table in rowid order (see drivingTrigram)
  const driving = dialect === 'sqlite' ? drivingTrigram(shape) : undefined;
  // the listed table's columns, named with the table when the FTS5 table is joined (their names may clash: `rank`)
  const own = (column: string): string => (driving === undefined ? q(column) : `${q(table)}.${q(column)}`);
  const where: string[] = [];
  if (shape.owner !== undefined) where.push(ownedBy(shape.owner, param, own));
  for (const filter of shape.filters) {
    const { column, op, via, trigram } = filter;
    // a column of the listed table, or of the last hop's (inside its subquery)
    const c = via === undefined || via.length === 0 ? own(column.column) : q(column.column);
    const folded = column.folded === true;
    // a unique email's equality is its unique index's: lower(column) = lower(value)
    // the value folded as the column is, by the "C" collation (ASCII letters only), not the database's default
    const collated = dialect === 'postgres' ? ' COLLATE "C"' : '';
    const equality = (sign: string): string =>
      folded
        ? `lower(${c}) ${sign} lower(${param(column.kind)}${collated})`
        : `${c} ${sign} ${param(column.kind)}`;
    let condition: string;
    // `in` takes its values as one parameter, a JSON array: one statement serves every count of values
    if (op === 'in') condition = IN_LIST[dialect](c, param('text'), column.kind, folded);
    else if (op === 'contains' && trigram === true && column.trigram !== undefined) {
      const served =
        filter === driving
          ? `${q(FTS)}.${q(column.trigram.table)} MATCH ${param('text')}`
          : TRIGRAM[dialect](
              column.trigram,
              c,
              param('text'),
              via === undefined || via.length === 0 ? own('id') : q('id'),
            );
      condition = `${served} AND ${CONTAINS[dialect](c, param('text'))}`;
    } else if (op === 'contains') condition = CONTAINS[dialect](c, param('text'));
    // `ne` keeps NULLs: a field that holds nothing is not equal to the value
    else if (op === 'ne') condition = `(${equality('<>')} OR ${c} IS NULL)`;
    else if (op === 'eq') condition = equality('=');
    else condition = `${c} ${COMPARISONS[op]} ${param(column.kind)}`;
    // from the last hop out: each one's owner parameter follows the condition inside it, as in the text
    const hops = [...(via ?? [])].reverse();
    hops.forEach((hop, i) => {
      const owned = hop.owner === undefined ? '' : ` AND ${ownedBy(hop.owner, param)}`;
      const local = i === hops.length - 1 ? own(hop.local) : q(hop.local);
      condition = `${local} IN (SELECT ${q(hop.remote)} FROM ${q(hop.table)} WHERE ${condition}${owned})`;
    });
    where.push(condition);
  }
  const key = driving === undefined ? q : (): string => `${q(FTS)}.rowid`;
  if (shape.afterNulls !== undefined) where.push(keyset(shape, shape.afterNulls, param, key));
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const limit = LIMIT[dialect](param);
  if (driving?.column.trigram === undefined)
    return `SELECT ${selectList} FROM ${q(table)}${filter} ORDER BY ${orderOf(shape)} LIMIT ${limit}`;
  const descending = shape.sort[0]?.descending === true;
  return fromFts(table, driving.column.trigram, selectList, filter, descending, limit);
}

/** NULLs first ascending, last descending; said only where there can be NULLs (see ListColumn.notNull). */
function direction({ column, descending }: ListShape['sort'][number]): string {
  if (column.notNull === true) return descending ? 'DESC' : 'ASC';
  return descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST';
}

/** Rows after the cursor's: (k1 after v1) OR (k1 = v1 AND k2 after v2) OR …, NULL-aware. */
function keyset(
  shape: ListShape,
  nulls: readonly boolean[],
  param: (kind: ValueKind) => string,
  name: (column: string) => string = q,
): string {
  const alternatives = shape.sort.map((key, i) => {
    const equal = shape.sort
      .slice(0, i)
      .map(({ column }, j) =>
        nulls[j] === true
          ? `${name(column.column)} IS NULL`
          : `${name(column.column)} = ${param(column.kind)}`,
      );
    const c = name(key.column.column);
    let after: string;
    if (key.descending && key.column.notNull === true) after = `${c} < ${param(key.column.kind)}`;
    else if (key.descending)
      after = nulls[i] === true ? 'FALSE' : `(${c} < ${param(key.column.kind)} OR ${c} IS NULL)`;
    else after = nulls[i] === true ? `${c} IS NOT NULL` : `${c} > ${param(key.column.kind)}`;
    return [...equal, after].join(' AND ');
  });
  return `(${alternatives.map((a) => `(${a})`).join(' OR ')})`;
}

/** The parameters of the keyset condition, in its order: for each sort key, the non-NULL values up to it. */
export function keysetParams(values: readonly SqlValue[]): SqlValue[] {
  const params: SqlValue[] = [];
  for (let i = 0; i < values.length; i++) {
    for (let j = 0; j <= i; j++) {
      const value = values[j] ?? null;
      if (value !== null) params.push(value);
    }
  }
  return params;
}

const q = (identifier: string): string => `"${identifier}"`;
