import type { Api, Field, JsonValue, Resource, When } from '../model.js';
import { preconditionFields, sampleBody, sampleChange } from '../contract/samples.js';
import { snapshotOf } from '../schema/snapshot.js';
import { allows, isPublic } from '../contract/access.js';
import { dependencyOrder } from '../schema/ddl.js';
import { writableFields } from '../schema/columns.js';
import { statePath } from './action-paths.js';

/** A valid request body for one resource, used by the generated tests; ref fields are filled in at run time. */
export interface Fixture {
  name: string;
  path: string;
  /** the operations switched on */
  operations: string[];
  body: Record<string, JsonValue>;
  /** a second valid body, different in every unique field */
  other: Record<string, JsonValue>;
  /** field → the collection whose record it must refer to */
  refs: Record<string, string>;
  keyed: boolean;
  /** a writable field and a second valid value for it, to exercise PATCH; absent when none fits */
  change?: { field: string; value: JsonValue };
  /** a writable field and a value of the wrong type for it, for a 400 */
  wrong?: { field: string; value: JsonValue };
  /** fields the API never returns */
  writeOnly: string[];
  /** fields valued by the user's functions (SPEC §9): any of them may change when a stored field does */
  computed: string[];
  /** whether POST needs no token */
  publicCreate: boolean;
  /**
   * the actions that take the record made with `body` into the states its update allows, or the one made with `other`
   * into those its delete allows (absent: it is made there); null when no actions take it there
   */
  toUpdate?: string[] | null;
  toDelete?: string[] | null;
}

/**
 * One fixture per resource that a test can create through the API (create switched on, every required
 * field fillable, every referenced resource creatable too), parents before children.
 */
export function fixtures(api: Api): Fixture[] {
  const creatable = new Set<string>();
  const result: Fixture[] = [];
  const ordered = dependencyOrder(snapshotOf(api).tables).flatMap((t) =>
    api.resources.filter((r) => r.name === t.resource),
  );
  for (const resource of ordered) {
    const fixture = fixtureOf(resource, creatable);
    if (fixture === undefined) continue;
    creatable.add(resource.name);
    result.push(fixture);
  }
  return result;
}

function fixtureOf(resource: Resource, creatable: ReadonlySet<string>): Fixture | undefined {
  if (!resource.operations.includes('create')) return undefined;
  const refs: Record<string, string> = {};
  // a ref to the collection itself names the collection's shared record once there is one (test/generated/access.ts,
  // Records.body), and is left out (null when required: validation makes such a ref nullable) before; not when a
  // unique key holds it, where every record would need a record of its own to refer to
  const roots: string[] = [];
  for (const field of writableFields(resource)) {
    if (field.ref === undefined) continue;
    if (field.ref.to === resource.name) {
      if (field.required) roots.push(field.name);
      if (!resource.unique.some((key) => key.includes(field.name))) refs[field.name] = resource.name;
    } else if (creatable.has(field.ref.to)) refs[field.name] = field.ref.to;
    else if (field.required) return undefined;
  }
  const fields = writableFields(resource);
  const body = sampleBody(fields, 1);
  const other = sampleBody(fields, 2);
  if (!body.complete || !other.complete) return undefined;
  for (const root of roots) body.body[root] = other.body[root] = null;
  // the record the tests update is made where its update rule allows updates, the one they delete where deletes are
  inStates(body.body, resource.writableWhen.update);
  inStates(other.body, resource.writableWhen.delete);
  // a state only actions set (a read-only status): the test takes the record there through them
  const toUpdate = statePath(resource, resource.writableWhen.update, body.body);
  const toDelete = statePath(resource, resource.writableWhen.delete, other.body);
  return {
    name: resource.name,
    path: `/${resource.name}`,
    operations: [...resource.operations],
    body: body.body,
    other: other.body,
    refs,
    // every record takes the same referenced records: a key over one of them allows one such record
    keyed: resource.unique.some((key) => key.some((field) => refs[field] !== undefined)),
    change: sampleChange(fields, preconditionFields(resource)),
    wrong: wrongValue(fields),
    writeOnly: resource.fields.filter((f) => f.writeOnly).map((f) => f.name),
    computed: resource.computed.map((f) => f.name),
    publicCreate: isPublic(resource.access.create),
    ...(toUpdate?.length !== 0 && { toUpdate: toUpdate ?? null }),
    ...(toDelete?.length !== 0 && { toDelete: toDelete ?? null }),
  };
}

/** `body` with each field a precondition reads, when the body sets it, holding a value the precondition allows. */
function inStates(body: Record<string, JsonValue>, when: When): void {
  for (const condition of when) {
    const { field, values } = condition;
    if (field in body && !allows(condition, body[field]) && values[0] !== undefined) body[field] = values[0];
  }
}

/** A value of the wrong JSON type for the first writable field that has one (json takes any). */
function wrongValue(fields: readonly Field[]): { field: string; value: JsonValue } | undefined {
  for (const field of fields) {
    if (field.readOnly || field.type === 'json') continue;
    const value = field.type === 'integer' || field.type === 'number' || field.type === 'boolean' ? 'x' : 12345;
    if (field.type === 'ref' && typeof value === 'number') return { field: field.name, value: true };
    return { field: field.name, value };
  }
  return undefined;
}
