import type { Action, Api, JsonValue, Resource, When } from '../model.js';
import { actionPath, statePath } from './action-paths.js';
import { writableFields } from '../schema/columns.js';
import { listables } from '../contract/listing.js';
import { allows } from '../contract/access.js';
import { accessMatrix, callersOf, createStatus, type MatrixRow } from '../contract/access-matrix.js';
import { sampleBody, sampleValue } from '../contract/samples.js';
import type { Fixture } from './fixtures.js';
import { reachesOf, type ReachView } from './reach-view.js';
import { RELATION_RECORDS, relationsView, type RelationView } from './relations-view.js';

/** A `when` as the generated tests read it: field → the values it may hold. */
const whenObject = (when: When): Record<string, JsonValue[]> =>
  Object.fromEntries(when.map((w) => [w.field, [...w.values]]));

/** The records the generated listing test makes per collection (LISTED in test/generated/listing.ts). */
const LISTED = 5;

/** What test/generated/access.ts makes records of a collection from (see its Fixture). */
export interface MatrixFixture {
  path: string;
  body: Record<string, JsonValue>;
  vary: Record<string, JsonValue[]>;
  refs: Record<string, string>;
  keyed: boolean;
  owner?: string;
}

/** The actions of a resource the generated actions test calls (see test/generated/actions.ts). */
export interface ActionsView {
  collection: string;
  /** the user's handlers module and its export, when the resource has handler actions */
  handlers?: { module: string; name: string };
  set: (Reaching & { name: string; set: Record<string, JsonValue> })[];
  /** updates and deletes allowed only in some states, and how a record leaves them */
  states: {
    operation: 'update' | 'delete';
    when: Record<string, JsonValue[]>;
    out: { patch: Record<string, JsonValue> } | { action: string; input?: Record<string, JsonValue> };
  }[];
  handled: (Reaching & { name: string; handler: string; method: 'GET' | 'POST'; item: boolean })[];
}

/** How the actions test calls an action: in its states, with a valid input. */
interface Reaching {
  /** the states it needs */
  when: Record<string, JsonValue[]>;
  /** the actions that take a new record into them, one after the other (none: it is made there); null: none do */
  path: string[] | null;
  /** a valid input (its body, or a GET's query); null when it takes none, or none can be made */
  input: Record<string, JsonValue> | null;
}

/** What test/generated/listing.ts pages, sorts and filters (see its Listing). */
export interface ListingView {
  collection: string;
  max: number;
  /**
   * `setBy`: the actions that give the field a value, one after the other, for a field no record is made with (one
   * that only actions set)
   */
  fields: { name: string; kind: string; operators: string[]; setBy?: string[] }[];
}

/** A resource's matrix as the generated test reads it: callers, and per row the statuses in their order. */
export interface MatrixView {
  callers: string[];
  rows: {
    what: string;
    method: string;
    item: boolean;
    changes: boolean;
    when: Record<string, JsonValue[]>;
    /** an action's valid input, which it is called with (its body, or a GET's query) */
    input?: Record<string, JsonValue>;
    statuses: (number | null)[];
  }[];
}

/**
 * The access matrix of every resource the tests can make records of (see fixtures.ts), and how to make them: the
 * sample body less the first owner field (it defaults to the caller), and per unique field as many distinct values as
 * the matrix can make records (a fresh record per admitted call that changes one, and per create).
 */
export function matrixView(
  api: Api,
  fixtures: readonly Fixture[],
): {
  fixtures: Record<string, MatrixFixture>;
  matrix: Record<string, MatrixView>;
  actions: ActionsView[];
  listings: ListingView[];
  /** with `events`: the matrices of the collections whose feed the events test checks */
  feeds: Record<string, MatrixView>;
  /** with `events`: the refs a delete follows (cascade, setNull) between collections the tests make records of */
  reaches: ReachView[];
  relations: RelationView[];
} {
  const resources = new Map(api.resources.map((r) => [r.name, r]));
  const made = new Map<string, number>();
  const relations = relationsView(api, Object.fromEntries(fixtures.map((f) => [f.name, f])));
  // the relations test's records: of the collection, and of the target (one per admitted nested create)
  const related = new Map<string, number>();
  const add = (name: string, n: number) => related.set(name, (related.get(name) ?? 0) + n);
  for (const view of relations) {
    add(view.collection, RELATION_RECORDS.parents);
    add(view.target, RELATION_RECORDS.children + view.callers.length);
  }
  const matrix: Record<string, MatrixView> = {};
  for (const fixture of fixtures) {
    const resource = resources.get(fixture.name);
    if (resource === undefined) continue;
    // a create's body refers to the administrator's records (see createStatus); the `owner` caller is the owner of a
    // record, and a create has none yet
    const createStatusOf = (caller: string): number | null =>
      caller === 'owner' ? null : createStatus(api, resource, caller, Object.keys(fixture.refs));
    const callers = callersOf(api, resource);
    const rows = accessMatrix(api, resource);
    matrix[fixture.name] = {
      callers,
      rows: rows.map((row) => ({
        what: row.what,
        method: row.method,
        item: row.item,
        changes: row.changes,
        when: whenObject(row.when),
        ...inputOf(resource.actions.find((a) => a.name === row.what)),
        statuses: callers.map((caller) =>
          row.what === 'create' ? createStatusOf(caller) : (row.statuses[caller] ?? null),
        ),
      })),
    };
    // records made: the shared one, and one per admitted call that changes or creates one
    const admitted = (row: MatrixRow): number =>
      Object.values(row.statuses).filter((s) => s !== 401 && s !== 403 && s !== 404).length;
    // and the listing test's (LISTED in test/generated/listing.ts), and the actions test's: one per action that
    // sets fields or acts on one record, one per update or delete state
    const actionCalls = resource.actions.filter((a) => a.set.length > 0 || a.on === 'item').length + 2;
    const fresh = rows.reduce(
      (sum, row) => sum + (row.what === 'create' ? callers.length : row.changes ? admitted(row) : 0),
      2 + actionCalls + LISTED + (related.get(fixture.name) ?? 0),
    );
    made.set(fixture.name, (made.get(fixture.name) ?? 0) + fresh);
    // a keyed record makes records of its own to refer to
    if (fixture.keyed)
      for (const target of Object.values(fixture.refs)) made.set(target, (made.get(target) ?? 0) + fresh);
  }
  const result: Record<string, MatrixFixture> = {};
  for (const fixture of fixtures) {
    const resource = resources.get(fixture.name);
    if (resource === undefined) continue;
    result[fixture.name] = fixtureFor(resource, fixture, made.get(fixture.name) ?? 1);
  }
  const actions = fixtures.flatMap((fixture) => {
    const resource = resources.get(fixture.name);
    if (resource === undefined) return [];
    const made = result[fixture.name];
    if (made === undefined) return [];
    const view = actionsOf(resource, made);
    return view.set.length + view.handled.length + view.states.length === 0 ? [] : [view];
  });
  const listings = fixtures.flatMap((fixture) => {
    const resource = resources.get(fixture.name);
    if (resource === undefined || !resource.operations.includes('list')) return [];
    const fields = listables(api, resource).map(({ name, kind, operators }) => {
      const setBy = actionPath(resource, (a) => a.set.some((s) => s.field === name));
      return { name, kind, operators, ...(setBy !== undefined && { setBy }) };
    });
    return [{ collection: fixture.name, max: api.limits.pageSize.max, fields }];
  });
  const feeds = api.events === undefined ? {} : matrix;
  const reaches = api.events === undefined ? [] : reachesOf(api, new Set(Object.keys(result)));
  return { fixtures: result, matrix, actions, listings, feeds, reaches, relations };
}

function actionsOf(resource: Resource, fixture: MatrixFixture): ActionsView {
  const handled = resource.actions.filter((a) => a.set.length === 0);
  // what a record the test makes holds (Records.body): the fixture's body, but for what each record has its own of
  const unknown = [...Object.keys(fixture.vary), ...Object.keys(fixture.refs), ...resource.owners];
  const reaching = (a: Action): Reaching => ({
    when: whenObject(a.when),
    path: statePath(resource, a.when, fixture.body, unknown) ?? null,
    input: inputOf(a).input ?? null,
  });
  return {
    collection: resource.name,
    ...(handled.length > 0 && {
      handlers: { module: `../../src/handlers/${resource.names.kebab}.js`, name: `${resource.names.camel}Handlers` },
    }),
    set: resource.actions
      .filter((a) => a.set.length > 0)
      .map((a) => ({
        name: a.name,
        set: Object.fromEntries(a.set.map((s) => [s.field, s.value.kind === 'now' ? { now: true } : s.value.value])),
        ...reaching(a),
      })),
    states: (['update', 'delete'] as const).flatMap((operation) => {
      const when = resource.writableWhen[operation];
      const out = when.length === 0 ? undefined : outOf(resource, when, (a) => reaching(a).path?.length === 0);
      return out === undefined ? [] : [{ operation, when: whenObject(when), out }];
    }),
    handled: handled.map((a) => ({
      name: a.name,
      handler: a.names.camel,
      method: a.method === 'get' ? ('GET' as const) : ('POST' as const),
      item: a.on === 'item',
      ...reaching(a),
    })),
  };
}

/** A valid input of an action, when it takes one and a sample of every field can be made. */
function inputOf(action: Action | undefined): { input?: Record<string, JsonValue> } {
  if (action === undefined || action.input.length === 0) return {};
  const sample = sampleBody(action.input, 1);
  return sample.complete ? { input: sample.body } : {};
}

function fixtureFor(resource: Resource, fixture: Fixture, count: number): MatrixFixture {
  const owner = resource.owners[0];
  const body = { ...fixture.body };
  if (owner !== undefined && fixture.refs[owner] === undefined) delete body[owner];
  // the other owner fields a body need not name are left out too: the administrator who makes a record names none,
  // so the first takes their subject (found by a reviewer: with one sent, it was left empty, and the record had no
  // owner the tests could be)
  for (const field of resource.fields) {
    if (resource.owners.includes(field.name) && !field.required && fixture.refs[field.name] === undefined)
      delete body[field.name];
  }
  const keyed = new Set(resource.unique.flat());
  const vary: Record<string, JsonValue[]> = {};
  for (const field of resource.fields) {
    // a ref's value is a record's id, not a sample (a self-ref in a key is null for every record: NULLs never clash)
    if (!(field.name in body) || field.ref !== undefined || !(field.unique === true || keyed.has(field.name))) continue;
    // distinct values only: a field that has fewer (an integer between bounds) makes fewer records
    const values = new Map<string, JsonValue>();
    for (let n = 1; n <= count; n += 1) {
      const value = sampleValue(field, n);
      if (value === undefined || values.has(JSON.stringify(value))) break;
      values.set(JSON.stringify(value), value);
    }
    vary[field.name] = [...values.values()];
  }
  return {
    path: fixture.path,
    body,
    vary,
    refs: fixture.refs,
    keyed: fixture.keyed,
    ...(owner !== undefined && { owner }),
  };
}

/**
 * How a record leaves the states `when` names: a PATCH of a writable field to a value outside them, or an action that
 * sets one so; undefined when the API has no way.
 */
function outOf(
  resource: Resource,
  when: When,
  madeIn: (action: Action) => boolean,
): { patch: Record<string, JsonValue> } | { action: string; input?: Record<string, JsonValue> } | undefined {
  const writable = writableFields(resource);
  for (const w of when) {
    const field = writable.find((f) => f.name === w.field && f.ref === undefined);
    if (field === undefined) continue;
    const outside = (v: JsonValue | undefined): v is JsonValue => v !== undefined && !allows(w, v);
    const candidates: (JsonValue | undefined)[] =
      field.type === 'enum'
        ? (field.values ?? [])
        : field.type === 'boolean'
          ? [true, false]
          : Array.from({ length: 8 }, (_, n) => sampleValue(field, n + 1));
    const value = candidates.find(outside);
    if (value !== undefined) return { patch: { [field.name]: value } };
  }
  const leaving = resource.actions.filter((a) =>
    a.set.some((s) => {
      const w = when.find((x) => x.field === s.field);
      return w !== undefined && s.value.kind === 'literal' && !allows(w, s.value.value);
    }),
  );
  // first one a new record may take (a 409 of its own is no way out)
  const action = leaving.find(madeIn) ?? leaving[0];
  return action === undefined ? undefined : { action: action.name, ...inputOf(action) };
}
