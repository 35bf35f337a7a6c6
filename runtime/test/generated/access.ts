import assert from 'node:assert/strict';
import { ADMIN_ROLE } from '../../src/app.js';
import { ADMINISTRATOR, takeActions, tokens, type Json, type JsonObject, type TestApi } from './harness.js';

/** How to make records of a collection through the API, as the administrator. */
export interface Fixture {
  path: string;
  /** a valid body, owner fields left out (they default to the caller) */
  body: JsonObject;
  /** per unique field, one value for each record made (the nth record takes the nth) */
  vary: Record<string, Json[]>;
  /** ref field → the collection it refers to */
  refs: Record<string, string>;
  /** a unique key holds refs: each record needs records of its own to refer to */
  keyed: boolean;
  /** the field whose value is the record's owner (`id`: the record itself); absent without owners */
  owner?: string;
}

/** One line of a matrix: an operation or action, and the status each caller gets. */
export interface Row {
  what: string;
  method: string;
  /** `/{id}` in the path */
  item: boolean;
  /** an admitted call changes the record: it is made a record of its own */
  changes: boolean;
  /** the states an admitted write needs: else 409 */
  when: Record<string, Json[]>;
  /** an action's valid input, which it is called with (its body, or a GET's query) */
  input?: JsonObject;
  /**
   * per caller, in the order of the matrix's `callers`: the status, 0 for "admitted, then your handler answers", null
   * for "not checked here" (a create by a caller admitted as an owner, where the owner is a reference or the id)
   */
  statuses: (number | null)[];
}

/** A resource's matrix: its callers, and a row per operation and action. */
export interface Matrix {
  callers: string[];
  rows: Row[];
}

const DENIED = new Set([401, 403]);

/**
 * What the definition leaves the tests no way to do (make another record of a unique field with few values, take a
 * record out of a state): the test is skipped, saying so.
 */
export class CannotCheck extends Error {
  override name = 'CannotCheck';
}

/** Makes records through the API: one shared per collection for calls that change nothing, fresh ones otherwise. */
export class Records {
  readonly #made = new Map<string, number>();
  readonly #shared = new Map<string, Promise<JsonObject>>();
  readonly #settled = new Map<string, JsonObject>();
  /** who made each record: its owner where the owner field took the maker's subject (a write-only one is not shown) */
  readonly #makers = new WeakMap<JsonObject, string>();

  constructor(
    private readonly api: TestApi,
    private readonly fixtures: Record<string, Fixture>,
  ) {}

  fixture(collection: string): Fixture {
    const fixture = this.fixtures[collection];
    assert.ok(fixture, `no fixture for ${collection}`);
    return fixture;
  }

  /** A body for a new record of the collection: the sample, its unique fields varied, its refs made. */
  async body(collection: string): Promise<JsonObject> {
    const fixture = this.fixture(collection);
    const n = this.#made.get(collection) ?? 0;
    this.#made.set(collection, n + 1);
    const body: JsonObject = { ...fixture.body };
    for (const [field, values] of Object.entries(fixture.vary)) {
      const value = values[n];
      if (value === undefined)
        throw new CannotCheck(
          `no record left to make: ${collection}.${field} has ${values.length} distinct values`,
        );
      body[field] = value;
    }
    for (const [field, target] of Object.entries(fixture.refs)) {
      if (target === collection) {
        // a ref to the collection itself: its shared record, once made (the first records have none)
        const parent = this.#settled.get(collection);
        if (parent !== undefined) body[field] = parent.id ?? null;
        continue;
      }
      const record = fixture.keyed ? await this.fresh(target) : await this.shared(target);
      body[field] = record.id ?? null;
    }
    return body;
  }

  /**
   * A new record, made by the administrator under a subject of its own (its owner, when the owner is the caller);
   * `set` overrides fields of the body (a ref to a given record).
   */
  async fresh(collection: string, set: JsonObject = {}): Promise<JsonObject> {
    const body = { ...(await this.body(collection)), ...set };
    const subject = `owner-${collection}-${this.#made.get(collection) ?? 0}`;
    const token = await tokens.of(subject, [ADMIN_ROLE]);
    const answer = await this.api.call('POST', this.fixture(collection).path, { token, body });
    assert.equal(answer.status, 201, `making a record of ${collection}: ${JSON.stringify(answer.body)}`);
    const record = answer.body as JsonObject;
    this.#makers.set(record, subject);
    return record;
  }

  /** The owner of a record the tests made: its owner field, or its maker where that field is never shown. */
  ownerOf(collection: string, record: JsonObject | undefined): Json | undefined {
    if (record === undefined) return undefined;
    const field = this.fixture(collection).owner ?? 'id';
    return field in record ? record[field] : this.#makers.get(record);
  }

  call(method: string, path: string, token: string | null, body?: Json) {
    return this.api.call(method, path, { token, ...(body !== undefined && { body }) });
  }

  /** Takes the record at `url` through `actions` (see takeActions). */
  take(url: string, actions: readonly string[]): Promise<JsonObject | undefined> {
    return takeActions(this.api, url, actions);
  }

  shared(collection: string): Promise<JsonObject> {
    let record = this.#shared.get(collection);
    if (record === undefined) {
      record = this.fresh(collection).then((made) => {
        this.#settled.set(collection, made);
        return made;
      });
      this.#shared.set(collection, record);
    }
    return record;
  }
}

/** The subject of a caller's token (`owner`: the owner of the record); undefined for a caller without a valid one. */
export function subjectOf(caller: string, owner: Json | undefined): string | undefined {
  if (caller === 'no token' || caller === 'expired token' || caller === 'badly signed token')
    return undefined;
  if (caller === 'administrator') return ADMINISTRATOR;
  if (caller === 'stranger') return 'stranger';
  if (caller === 'owner') {
    assert.ok(owner !== undefined && owner !== null, 'the record has no owner');
    return String(owner);
  }
  return `test-${caller.slice('role:'.length)}`;
}

/** The token of a caller of the matrix (`role:<name>`, `owner` of `record`…); null for none. */
export async function tokenOf(caller: string, owner: Json | undefined): Promise<string | null> {
  if (caller === 'no token') return null;
  if (caller === 'expired token') return tokens.expired();
  if (caller === 'badly signed token') return tokens.badlySigned();
  if (caller === 'administrator') return tokens.administrator();
  const subject = subjectOf(caller, owner) ?? '';
  return caller.startsWith('role:') ? tokens.of(subject, [caller.slice('role:'.length)]) : tokens.of(subject);
}

/** Whether `record` is in every state `when` names. */
export const holds = (record: JsonObject, when: Record<string, Json[]>): boolean =>
  Object.entries(when).every(([field, values]) => values.some((v) => v === record[field]));

/**
 * Calls `row` as `caller` and checks the status the matrix says: on the collection's shared record, or on a record
 * of its own when an admitted call changes it; an admitted write of a record outside its `when` must be a 409.
 */
export const check = (records: Records, collection: string, matrix: Matrix, row: Row, caller: string) =>
  checkOne(records, collection, matrix, row, caller);

/** Runs a test that makes records; skips it, saying why, when the definition allows no more of them. */
export async function orSkip(t: { skip(message: string): void }, test: () => Promise<void>): Promise<void> {
  try {
    await test();
  } catch (error) {
    if (!(error instanceof CannotCheck)) throw error;
    t.skip(error.message);
  }
}

async function checkOne(
  records: Records,
  collection: string,
  { callers }: Matrix,
  row: Row,
  caller: string,
): Promise<void> {
  const expected = row.statuses[callers.indexOf(caller)];
  if (expected === null || expected === undefined) return;
  const fixture = records.fixture(collection);
  const admitted = !DENIED.has(expected) && expected !== 404;
  const record =
    row.what === 'create'
      ? undefined
      : row.changes && admitted
        ? await records.fresh(collection)
        : await records.shared(collection);
  const token = await tokenOf(caller, records.ownerOf(collection, record));
  const path = record === undefined ? fixture.path : `${fixture.path}/${String(record.id)}`;
  const action =
    row.what === 'list' ||
    row.what === 'read' ||
    row.what === 'create' ||
    row.what === 'update' ||
    row.what === 'delete'
      ? ''
      : `/${row.what}`;
  const url = row.item || row.what === 'read' ? `${path}${action}` : `${fixture.path}${action}`;
  // every create sends a body of its own: a caller who may not give a record away is refused after it is read; a
  // handler's action its valid input, so that what answers is its rule, its `when` and then the handler, not a 400
  const body =
    row.what === 'create'
      ? await records.body(collection)
      : row.what === 'update'
        ? {}
        : row.method === 'POST'
          ? row.input
          : undefined;
  const query = row.method === 'GET' && row.input !== undefined ? queryOf(row.input) : '';
  const answer = await records.call(row.method, `${url}${query}`, token, body);
  const want = admitted && record !== undefined && !holds(record, row.when) ? 409 : expected;
  const detail = `${row.method} ${url} as ${caller}: ${JSON.stringify(answer.body)}`;
  // a handler's action: the rule admits it, and the stub (501) or your handler answers, without failing
  if (want === 0)
    assert.ok(
      !DENIED.has(answer.status) && (answer.status < 500 || answer.status === 501),
      `${detail} (admitted)`,
    );
  else assert.equal(answer.status, want, detail);
}

/** `input` as a query string (`?day=2026-12-01&slots=4`): a string as it is, any other value as JSON. */
export function queryOf(input: JsonObject): string {
  const entries = Object.entries(input).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  return `?${new URLSearchParams(entries).toString()}`;
}

/** A row's expected status for a caller, as a test's title says it. */
export function titleOf(row: Row, status: number | null | undefined): string {
  if (status === null || status === undefined) return 'not checked';
  const outside = Object.keys(row.when).length === 0 ? '' : ', or 409 outside its when';
  if (status === 0) return `admitted, then your handler answers${outside}`;
  return DENIED.has(status) || status === 404 ? String(status) : `${status}${outside}`;
}
