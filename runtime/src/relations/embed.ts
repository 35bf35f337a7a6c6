import type { AccessRule } from '../auth/authorize.js';
import type { Caller } from '../auth/verify.js';
import type { Database, SqlValue } from '../db/database.js';
import type { Parent, RelatedScopes } from '../http/listing.js';
import { mostEmbedded, overBudget, treeOf, type IncludeTree } from './budget.js';
import {
  byId,
  inList,
  numbered,
  ownedBy,
  ownerValues,
  param,
  q,
  selectList,
  Statements,
  toManySql,
} from './sql.js';

/**
 * Embedding (`?include=author,books.tags`): each included relation costs one query per request, whatever the page
 * size — the keys of every record of the level are sent at once (`WHERE key IN (…)`), and a to-many relation is cut
 * to a page per parent in SQL (ROW_NUMBER() OVER (PARTITION BY …)). Embedded records obey their own resource's
 * `read` rule, compiled into the query: one the caller may not read embeds as null (to-one) or is left out of the
 * page (to-many) — never a 403, never a leak; their write-only fields are never embedded.
 */

/** What a resource offers to the relations of others: its store makes it (see `relationTarget` in each store). */
export interface RelationTarget {
  table: string;
  /** the columns embedding reads (id, the fields but write-only ones, the timestamps), in `decode`'s order */
  columns: readonly string[];
  /** how its ids are stored: text (UUIDs) or integer */
  idKind: 'text' | 'integer';
  /** its `read` rule */
  read: AccessRule;
  /**
   * the owner columns (a record is an owner's when any of them holds the owner) and the value a token subject takes
   * in them, when the resource has an owner
   */
  owner?: { columns: readonly string[]; kind: 'text' | 'integer'; value: (subject: string) => SqlValue };
  /**
   * A row read as values in the order of `columns` (see Statement.values), as the API returns the record (write-only
   * fields left out)
   */
  decode(values: readonly SqlValue[]): object;
  /** the cursor of the page after the record `id` on a listing in id order (an embedded page continues on its nested route) */
  cursorAfter(id: SqlValue): string;
}

/**
 * A relation of one resource: `one` holds the target's id in the field `field` (column `column`) of this
 * resource's records; `many` finds the target's records whose column `column` holds this record's id.
 */
export interface RelationLink {
  kind: 'one' | 'many';
  target: string;
  field: string;
  column: string;
  /**
   * many-to-many: the join resource, whose rows link this resource's records (column `near`) to the target's
   * (column `far`); each link obeys the join resource's own `read` rule
   */
  through?: { resource: string; near: string; far: string };
}

/** By resource, then by relation name. */
export type RelationMap = Readonly<Record<string, Readonly<Record<string, RelationLink>>>>;

type ApiRecord = Record<string, unknown>;

/** Who may read a resource's records: false, nobody of theirs; null, every record; else only this owner value. */
export function readScope(
  caller: Caller | undefined,
  target: RelationTarget,
  adminRole: string,
): false | null | SqlValue {
  const rule = target.read;
  if (rule.public) return null;
  if (caller === undefined) return false;
  if (caller.roles.includes(adminRole) || rule.authenticated) return null;
  if (rule.roles?.some((role) => caller.roles.includes(role))) return null;
  if (rule.owner && target.owner !== undefined) return target.owner.value(caller.subject);
  return false;
}

export class Embedder {
  readonly #statements: Statements;
  readonly #texts = new Map<string, string>();

  constructor(
    private readonly db: Database,
    private readonly targets: Readonly<Record<string, RelationTarget>>,
    private readonly relations: RelationMap,
    private readonly adminRole: string,
    /** how many records an embedded to-many page holds */
    private readonly pageSize: number,
    /** `limits.include.maxRecords`: the most records one request may embed (see budget.ts) */
    private readonly maxRecords: number,
  ) {
    this.#statements = new Statements(db);
  }

  /**
   * Refuses, with a 400 naming the budget, an include that could embed more than `limits.include.maxRecords` records
   * in `top` records of `resource` (a listing's `limit`, 1 for a read): called before any query of the request runs.
   */
  checkBudget(resource: string, paths: readonly string[] | undefined, top: number): void {
    if (paths === undefined || paths.length === 0) return;
    const most = mostEmbedded(this.relations, resource, paths, top, this.pageSize);
    if (most > this.maxRecords) throw overBudget(most, this.maxRecords);
  }

  /** Adds the relations `paths` name (validated by the route's schema) to `records` of `resource`, in place. */
  async embed(
    resource: string,
    records: readonly object[],
    paths: readonly string[] | undefined,
    caller: Caller | undefined,
  ): Promise<void> {
    if (paths === undefined || paths.length === 0 || records.length === 0) return;
    // the records are the API's own, fresh from a store: they take the embedded relations as new properties
    await this.#level(resource, records as ApiRecord[], treeOf(paths), caller);
  }

  /**
   * Whether the caller may read the record `id` of `resource` by its `read` rule (owner scoping included): a
   * nested route under a parent the caller cannot read is a 404, like the parent itself.
   */
  async readable(resource: string, id: SqlValue, caller: Caller | undefined): Promise<boolean> {
    const target = this.#target(resource);
    return this.#found(target, id, readScope(caller, target, this.adminRole));
  }

  /**
   * Whether the caller's read scope of `resource` excludes the record `id` — false when it may read every record
   * (then only whether `id` exists is left to ask, which the write's foreign key does), else whether it may read
   * this one.
   */
  async unreadable(resource: string, id: SqlValue, caller: Caller | undefined): Promise<boolean> {
    const target = this.#target(resource);
    const scope = readScope(caller, target, this.adminRole);
    return scope !== null && !(await this.#found(target, id, scope));
  }

  /** Whether the caller's read scope of `resource` is all of its records. */
  readsAll(resource: string, caller: Caller | undefined): boolean {
    return readScope(caller, this.#target(resource), this.adminRole) === null;
  }

  /** Whether the record `id` of `resource` exists, whoever may read it. */
  async exists(resource: string, id: SqlValue): Promise<boolean> {
    return this.#found(this.#target(resource), id, null);
  }

  #target(resource: string): RelationTarget {
    const target = this.targets[resource];
    if (target === undefined) throw new Error(`no resource ${resource}`);
    return target;
  }

  async #found(target: RelationTarget, id: SqlValue, scope: false | null | SqlValue): Promise<boolean> {
    if (scope === false) return false;
    const params: SqlValue[] = [id];
    const next = numbered(this.db.dialect, params);
    const sql =
      `SELECT 1 AS ${q('found')} FROM ${q(target.table)} WHERE ${q('id')} = ${param(this.db.dialect, 1, target.idKind)}` +
      (scope === null ? '' : ` AND ${ownedBy(target, scope, next)}`);
    const row = await this.#statements.of(sql).get(params);
    return row !== undefined;
  }

  /**
   * The read scopes of related resources for a listing whose query filters through a relation (`?author.country=FR`):
   * the caller is verified only then; undefined when no filter goes through a relation.
   */
  async scopes(
    query: object,
    caller: () => Caller | undefined | Promise<Caller | undefined>,
  ): Promise<RelatedScopes | undefined> {
    if (!Object.keys(query).some((name) => name.includes('.'))) return undefined;
    const who = await caller();
    return (resource) => {
      const target = this.targets[resource];
      if (target === undefined) throw new Error(`no resource ${resource}`);
      const owner = target.owner;
      return {
        scope: readScope(who, target, this.adminRole),
        ...(owner !== undefined && { owner: { columns: owner.columns, kind: owner.kind } }),
      };
    };
  }

  /**
   * What the nested listing of a many-to-many relation (`GET /books/{id}/tags`) is restricted to: the target's
   * records linked to `id` by the links the caller may read; null when they may read none.
   */
  linkedTo(resource: string, relation: string, id: SqlValue, caller: Caller | undefined): Parent | null {
    const through = this.relations[resource]?.[relation]?.through;
    const join = through === undefined ? undefined : this.targets[through.resource];
    const parent = this.targets[resource];
    if (through === undefined || join === undefined || parent === undefined) {
      throw new Error(`no many-to-many relation ${resource}.${relation}`);
    }
    const scope = readScope(caller, join, this.adminRole);
    if (scope === false) return null;
    const owner =
      scope === null || join.owner === undefined
        ? undefined
        : { columns: { columns: join.owner.columns, kind: join.owner.kind }, value: scope };
    return {
      through: {
        table: join.table,
        near: { column: through.near, kind: parent.idKind },
        far: through.far,
        ...(owner !== undefined && { owner }),
      },
      id,
    };
  }

  async #level(
    resource: string,
    records: readonly ApiRecord[],
    tree: IncludeTree,
    caller: Caller | undefined,
  ) {
    for (const [name, deeper] of tree) {
      const link = this.relations[resource]?.[name];
      const target = link === undefined ? undefined : this.targets[link.target];
      if (link === undefined || target === undefined) throw new Error(`no relation ${resource}.${name}`);
      const scope = readScope(caller, target, this.adminRole);
      const join = link.through === undefined ? undefined : this.targets[link.through.resource];
      const joinScope = join === undefined ? null : readScope(caller, join, this.adminRole);
      const keyKind = this.targets[resource]?.idKind ?? 'text';
      const embedded =
        link.kind === 'one'
          ? await this.#one(name, link, target, records, scope)
          : await this.#many(name, link, target, records, keyKind, scope, join, joinScope);
      if (deeper.size > 0) await this.#level(link.target, embedded, deeper, caller);
    }
  }

  /** Sets `name` of each record to the target its field refers to, or null; returns the targets found. */
  async #one(
    name: string,
    link: RelationLink,
    target: RelationTarget,
    records: readonly ApiRecord[],
    scope: false | null | SqlValue,
  ): Promise<ApiRecord[]> {
    const keys = new Set<unknown>();
    for (const record of records) {
      const key = record[link.field];
      if (key !== null && key !== undefined) keys.add(key);
    }
    const found = new Map<unknown, ApiRecord>();
    if (scope !== false && keys.size > 0) {
      const sql = this.#sql(`one ${link.target} ${scope === null}`, () => {
        const d = this.db.dialect;
        return (
          `SELECT ${selectList(target)} FROM ${q(target.table)} ` +
          `WHERE ${q('id')} IN (${inList(d, target.idKind, 1)})` +
          (scope === null ? '' : ` AND ${ownedBy(target, scope, numbered(d, [null]))}`)
        );
      });
      const params = [JSON.stringify([...keys]), ...(scope === null ? [] : ownerValues(target, scope))];
      // ids as the records hold them: numbers for integer ids, UUID text otherwise, on both databases
      for (const values of await this.#statements.of(sql).values(params)) {
        found.set(values[0], target.decode(values) as ApiRecord);
      }
    }
    for (const record of records) record[name] = found.get(record[link.field]) ?? null;
    return [...found.values()];
  }

  /**
   * Sets `name` of each record to the first page of the target's records that refer to it (or, many-to-many, that
   * the links the caller may read lead to); returns them all. `keyKind` is how the records' ids are stored.
   */
  async #many(
    name: string,
    link: RelationLink,
    target: RelationTarget,
    records: readonly ApiRecord[],
    keyKind: 'text' | 'integer',
    scope: false | null | SqlValue,
    join: RelationTarget | undefined,
    joinScope: false | null | SqlValue,
  ): Promise<ApiRecord[]> {
    const groups = new Map<unknown, SqlValue[][]>();
    if (scope !== false && joinScope !== false) {
      const keys = JSON.stringify(records.map((r) => r.id));
      const { sql, params, parentColumn } = toManySql(this.db.dialect, link, target, keys, keyKind, {
        scope,
        join,
        joinScope,
        rows: this.pageSize + 1,
      });
      // the parent's key is a column of the target's, or the one the statement adds after them
      const at = target.columns.indexOf(parentColumn);
      const parentAt = at === -1 ? target.columns.length : at;
      for (const values of await this.#statements.of(sql).values(params)) {
        const key = values[parentAt];
        const group = groups.get(key);
        if (group === undefined) groups.set(key, [values]);
        else group.push(values);
      }
    }
    const all: ApiRecord[] = [];
    for (const record of records) {
      const rows = groups.get(record.id) ?? [];
      if (rows.length > 1) rows.sort(byId);
      const items = rows.slice(0, this.pageSize).map((values) => target.decode(values) as ApiRecord);
      const last = rows.length > this.pageSize ? rows[this.pageSize - 1] : undefined;
      record[name] = { items, nextCursor: last === undefined ? null : target.cursorAfter(last[0] ?? null) };
      all.push(...items);
    }
    return all;
  }

  /** The SQL text of `key`, written once (a few per relation: see Statements). */
  #sql(key: string, write: () => string): string {
    let sql = this.#texts.get(key);
    if (sql === undefined) {
      sql = write();
      this.#texts.set(key, sql);
    }
    return sql;
  }
}
