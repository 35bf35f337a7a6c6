import { setBounded } from '../bounded.js';
import type { Database, ListStatement, Row, SqlValue, Statement } from '../db/database.js';
import {
  costFacts,
  filterKey,
  filterParams,
  keysetParams,
  listParams,
  listSql,
  ownerParams,
  servedByTrigram,
  shapeKey,
  sortKeysSql,
  type Hop,
  type ListColumn,
  type ListShape,
  type Operator,
  type OwnerColumns,
} from '../db/list-sql.js';
import { Cursors, invalidCursor } from './cursors.js';
import { badRequest } from './problem.js';
import { scanClientOf } from './scan-clients.js';
import { hopsThrough, type RelatedScopes, type RelationFilterSpec } from './related.js';
import { CANONICAL, isDateTime, SPELLING } from './validator.js';

export type { RelatedScopes, RelationFilterSpec } from './related.js';

/**
 * Listing: `limit`, `sort` (comma-separated fields, `-` for descending, ties broken by id), filters
 * (`?status=published`, `?views[gte]=10`; operators ne gt gte lt lte in contains) and keyset pages: a cursor holds
 * the sort keys of the last record, so a deep page costs what the first one costs. NULLs sort first ascending and
 * last descending. `contains` is a substring match that ignores the case of ASCII letters. Cursors are signed: a
 * forged one is a 400. Filters through relations (`?author.country=FR`, `?tags.name=x`) are subqueries, each hop
 * scoped by its resource's read rule (see related.ts).
 *
 * Each query shape (sort, filters, cursor) gets its SQL written and prepared once (db/list-sql.ts), then reused;
 * values are always parameters. The query string was validated against the route's schema before it reaches here.
 */
export interface ListSpec {
  table: string;
  selectList: string;
  /** by API field name: the fields a listing can filter and sort on (id, createdAt and updatedAt included) */
  columns: Record<string, ListColumn>;
  /** the owner columns: a listing restricted to an owner shows the records where any of them holds the owner */
  ownerColumns?: readonly string[];
  /** by relation name: how filters through it (`?author.country=FR`) reach the related records */
  relations?: Record<string, RelationFilterSpec>;
}

interface Filter {
  column: ListColumn;
  op: Operator;
  values: SqlValue[];
  via?: readonly Hop[];
  /** the owner values of the hops, from the last (see listSql) */
  owners?: SqlValue[];
}

/**
 * What a nested route restricts a listing to: the records whose ref field `field` holds `id`; or, through a join
 * table, the records whose id is `far` in a row whose `near` is `id` (`owner`: only that owner's rows of the join).
 */
export type Parent =
  | { field: string; id: SqlValue }
  | {
      through: {
        table: string;
        near: ListColumn;
        far: string;
        owner?: { columns: OwnerColumns; value: SqlValue };
      };
      id: SqlValue;
    };

interface SortKey {
  field: string;
  column: ListColumn;
  descending: boolean;
}

const MAX_SHAPES = 256;
const MAX_NAMED_SHAPES = 64;
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const ID: ListColumn = { column: 'id', kind: 'text', notNull: true };

export class Listing {
  readonly #statements = new Map<string, ListStatement>();
  /** by sort columns: the statement that reads a record's sort keys (see #sortKeysOf), at most MAX_SHAPES */
  readonly #lookups = new Map<string, Statement>();
  /** the shapes whose statements are named on PostgreSQL (at most MAX_NAMED_SHAPES, never dropped) */
  readonly #named = new Set<string>();
  /** the owner columns, with the kind of their values */
  readonly #owner: OwnerColumns | undefined;
  /** the cursors of this listing, signed with the server's key made this table's own (see Cursors) */
  readonly #cursors: Cursors;

  constructor(
    private readonly db: Database,
    private readonly spec: ListSpec,
    key: Buffer,
  ) {
    this.#cursors = new Cursors(key, spec.table);
    const owners = spec.ownerColumns;
    const first = Object.values(spec.columns).find((c) => c.column === owners?.[0]);
    this.#owner = owners === undefined ? undefined : { columns: owners, kind: first?.kind ?? 'text' };
  }

  /**
   * One page: `query` is the validated query string, `owner` the owner column's value a listing is restricted to;
   * `parent` restricts it to the records whose ref field refers to one record (a nested route's `{id}`).
   */
  async page(
    query: Record<string, unknown>,
    owner: SqlValue | null,
    parent?: Parent,
    related?: RelatedScopes,
  ): Promise<{ rows: Row[]; nextCursor: string | null }> {
    const limit = Number(query.limit);
    const sort = this.#sort(typeof query.sort === 'string' ? query.sort : '');
    const fixed = parent === undefined ? [] : [this.#parentFilter(parent)];
    // filters in one order whatever the query's: a shape is the same statement however it is written
    const asked = this.#filters(query, related);
    // a filter through a relation whose rows the caller may not read matches nothing
    if (asked === null) return { rows: [], nextCursor: null };
    const given = [...fixed, ...asked];
    const filters =
      given.length < 2
        ? given
        : given
            .map((f) => ({ filter: f, key: filterKey(f) }))
            .sort((a, b) => compare(a.key, b.key))
            .map(({ filter }) => filter);
    const sortText = sort.map((k) => `${k.descending ? '-' : ''}${k.field}`).join(',');
    // whose cursors these are: the owner the listing (or the join a nested one goes through) is restricted to
    const through = parent !== undefined && 'through' in parent ? parent.through.owner?.value : undefined;
    const scope = owner !== null ? `owner ${owner}` : through != null ? `join owner ${through}` : '';
    const position =
      typeof query.cursor === 'string'
        ? this.#cursors.decode(query.cursor, sortText, sort.length, scope)
        : undefined;
    const after =
      position === undefined || 'values' in position
        ? position?.values
        : await this.#sortKeysOf(position.record, sort);
    const restricted = owner !== null ? this.#owner : undefined;

    // restricted to the caller's records, a `contains` reads theirs (the owner's index) and not the trigram index:
    // its candidates are every record that holds the value, whoever's, and the time they take would tell a caller how
    // many of others' records hold it (805 ms against 9 for one owner's few, at 300,000 records)
    const shape: ListShape = {
      owner: restricted,
      filters: filters.map((f) => ({
        column: f.column,
        op: f.op,
        ...(f.via !== undefined && { via: f.via }),
        ...(restricted === undefined &&
          servedByTrigram(f.column, f.op, f.values[0]) && { trigram: true as const }),
      })),
      sort,
      afterNulls: after?.map((value) => value === null),
    };
    // after the owner's values: filter values, cursor values, the limit (see listParams)
    const rest: SqlValue[] = [];
    for (const [i, f] of filters.entries()) {
      const filter = shape.filters[i];
      rest.push(...(filter === undefined ? [] : filterParams(filter, f.values, this.db.dialect)));
      if (f.owners !== undefined) rest.push(...f.owners);
    }
    if (after !== undefined) rest.push(...keysetParams(after));
    rest.push(limit + 1);
    const params = listParams(restricted, owner, rest);

    const rows = await this.#statement(shape).all(params, () => scanClientOf(query));
    const last = rows.length > limit ? rows[limit - 1] : undefined;
    return {
      rows: rows.length > limit ? rows.slice(0, limit) : rows,
      nextCursor:
        last === undefined
          ? null
          : this.#cursors.encode(
              sortText,
              sort.map((k) => last[k.column.column] ?? null),
              scope,
              last.id,
            ),
    };
  }

  /**
   * The cursor of the page after `row` in id order: where an embedded page of these records continues. Not
   * remembered: the embedding listing's scope is not this one's (see Cursors).
   */
  cursorAfter(row: Row): string {
    return this.#cursors.encode('id', [row.id ?? null], null);
  }

  /**
   * The sort keys of the record a cursor names (one whose keys were too long to hold): a 400 when it is gone. They
   * are read as they are now, so a page continues where that record stands, not where it stood.
   */
  async #sortKeysOf(record: SqlValue, sort: readonly SortKey[]): Promise<SqlValue[]> {
    const columns = sort.map((k) => k.column.column);
    const key = columns.join(',');
    let statement = this.#lookups.get(key);
    if (statement === undefined) {
      const idKind = this.spec.columns.id?.kind ?? ID.kind;
      statement = this.db.prepareText(sortKeysSql(this.spec.table, columns, idKind, this.db.dialect), {
        transient: true,
      });
      setBounded(this.#lookups, key, statement, MAX_SHAPES);
    }
    const row = await statement.get([record]);
    if (row === undefined)
      throw invalidCursor('continues after a record that is gone: start again without it');
    return columns.map((column) => row[column] ?? null);
  }

  #parentFilter(parent: Parent): Filter {
    if ('through' in parent) {
      const { table, near, far, owner } = parent.through;
      const hop: Hop = {
        local: 'id',
        table,
        remote: far,
        ...(owner !== undefined && { owner: owner.columns }),
      };
      return {
        column: near,
        op: 'eq',
        values: [parent.id],
        via: [hop],
        owners: owner === undefined ? [] : ownerParams(owner.columns, owner.value),
      };
    }
    const column = this.spec.columns[parent.field];
    if (column === undefined) throw new Error(`${this.spec.table} cannot be listed by ${parent.field}`);
    return { column, op: 'eq', values: [parent.id] };
  }

  /**
   * The statement of one query shape, written and prepared the first time the shape is asked for. What a client can
   * make the server keep is bounded: at most MAX_SHAPES statements here (the oldest is dropped), and on PostgreSQL
   * only the first MAX_NAMED_SHAPES shapes ever seen are named statements, kept by each connection; later ones are
   * unnamed, planned each time and kept by no one.
   */
  #statement(shape: ListShape): ListStatement {
    const key = shapeKey(shape);
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      const sql = listSql(this.spec.table, this.spec.selectList, shape, this.db.dialect);
      if (this.#named.size < MAX_NAMED_SHAPES) this.#named.add(key);
      statement = this.db.prepareList(sql, costFacts(this.spec.table, shape), {
        transient: !this.#named.has(key),
      });
      setBounded(this.#statements, key, statement, MAX_SHAPES);
    }
    return statement;
  }

  #sort(text: string): SortKey[] {
    const keys = text === '' ? [] : text.split(',');
    const sort = keys.map((entry): SortKey => {
      const descending = entry.startsWith('-');
      const field = descending ? entry.slice(1) : entry;
      const column = this.spec.columns[field];
      if (column === undefined)
        throw badRequest('the sort is not valid', [{ path: '/sort', message: `cannot sort by "${field}"` }]);
      return { field, column, descending };
    });
    if (new Set(sort.map((k) => k.field)).size !== sort.length) {
      throw badRequest('the sort is not valid', [{ path: '/sort', message: 'names a field twice' }]);
    }
    return sort.some((k) => k.field === 'id')
      ? sort
      : [...sort, { field: 'id', column: this.spec.columns.id ?? ID, descending: false }];
  }

  /** The filters of the query string; null when one goes through a relation the caller may read nothing of. */
  #filters(query: Record<string, unknown>, related: RelatedScopes | undefined): Filter[] | null {
    const filters: Filter[] = [];
    for (const [name, raw] of Object.entries(query)) {
      const match = /^(?:([a-z][A-Za-z0-9]*)\.)?([A-Za-z][A-Za-z0-9]*)(?:\[([a-z]+)\])?$/.exec(name);
      if (match === null || ['limit', 'cursor', 'sort', 'include'].includes(name)) continue;
      const [, relationName, field = '', operator] = match;
      const relation = relationName === undefined ? undefined : this.spec.relations?.[relationName];
      const column = relationName === undefined ? this.spec.columns[field] : relation?.columns[field];
      if (column === undefined) continue;
      const op = (operator ?? 'eq') as Operator;
      const path = `/${name}`;
      // an `in` list is an array of values the validator checked one by one (see strictParameters)
      const values = (Array.isArray(raw) ? raw : [raw]).map((value) => stored(column, value, path));
      if (relation === undefined) {
        filters.push({ column, op, values });
        continue;
      }
      if (related === undefined)
        throw new Error(`a filter through ${relationName} needs the caller's scopes`);
      const through = hopsThrough(relation, related);
      if (through === null) return null;
      filters.push({ column, op, values, ...through });
    }
    return filters;
  }
}

/** A query value as its column stores it. */
function stored(column: ListColumn, value: unknown, path: string): SqlValue {
  switch (column.kind) {
    case 'boolean':
      return value === true || value === 'true' ? 1 : 0;
    case 'integer':
    case 'number': {
      // the validator coerced it after checking its spelling (see strictParameters); a text here is checked the same
      if (typeof value === 'string' && !CANONICAL[column.kind].test(value)) {
        throw badRequest('the query is not valid', [{ path, message: SPELLING[column.kind] }]);
      }
      const n = Number(value);
      if (!Number.isFinite(n))
        throw badRequest('the query is not valid', [{ path, message: 'is not a number' }]);
      if (column.kind === 'integer' && !Number.isSafeInteger(n))
        throw badRequest('the query is not valid', [{ path, message: 'is not a whole number' }]);
      return n;
    }
    case 'datetime': {
      // years 1 to 9999 in UTC, real dates only: what both databases store and compare alike
      if (typeof value !== 'string' || !isDateTime(value))
        throw badRequest('the query is not valid', [
          { path, message: 'is not an RFC 3339 date-time from year 1 to 9999' },
        ]);
      return new Date(value).toISOString();
    }
    default:
      return String(value);
  }
}
