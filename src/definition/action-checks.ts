/** Semantic checks of actions: names, access, `when` and `set` against the fields, input fields. */
import { CheckContext, reportCollisions } from './check-context.js';
import { checkSite } from './access-checks.js';
import { didYouMean } from './did-you-mean.js';
import { checkFields, collisionMessage } from './field-checks.js';
import type { FieldObject } from './field-schema.js';
import type { PathSeg } from './positions.js';
import type { SalvagedAction, SalvagedResource } from './salvage.js';
import { valueProblem } from './values.js';
import type { WhenDef } from './schema.js';
import { names as namesOf } from '../naming.js';
import { OPERATIONS } from '../model.js';

const NOW = 'now';

/**
 * Names an action cannot take (camelCase): the resource's operations (its access rules sit beside the actions'), the
 * members its generated store has already (an action is a store method of the same name), and those every object has.
 */
const TAKEN = new Set([
  ...OPERATIONS,
  ...['get', 'replace', 'patch', 'prepare', 'db', 'cursorKey', 'constructor'],
  // what every store has from db/store.ts (an action is a method of its resource's store)
  ...['write', 'deleteReaching', 'changeOf', 'events', 'resource', 'eventShape', 'stored'],
  // and what a generated store may declare besides its operations and actions (templates/resource/store.ts.hbs)
  ...['relationTarget', 'recordAction', 'eventSource', 'getBeforeAction'],
  ...['toString', 'toLocaleString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable'],
]);

export function checkActions(ctx: CheckContext, resource: SalvagedResource): void {
  const base: PathSeg[] = ['resources', resource.name, 'actions'];
  reportCollisions(
    ctx,
    [...resource.actions.keys()],
    (name) => [...base, name],
    (name, earlier) => collisionMessage('action', name, earlier),
  );
  for (const [name, action] of resource.actions) {
    const at = (...rest: PathSeg[]): PathSeg[] => [...base, name, ...rest];
    const what = `${action.on} action "${name}"`;
    if (TAKEN.has(namesOf(name).camel)) {
      ctx.report(at(), `"${name}" is a name the generated code uses for the resource itself: choose another`, 'key');
    }
    checkSite(ctx, { resource, own: action.access, ownPath: at('access'), what, hasRecord: action.on === 'item' });
    checkWhen(ctx, resource, action, at);
    checkSet(ctx, resource, action, at);
    checkInput(ctx, action, at);
    checkReadOnly(ctx, action, at);
  }
}

type At = (...rest: PathSeg[]) => PathSeg[];

/** The field a `when` or `set` entry names; reports it when it does not exist. */
function fieldFor(
  ctx: CheckContext,
  resource: SalvagedResource,
  name: string,
  path: PathSeg[],
): FieldObject | undefined {
  if (!resource.fields.declared.includes(name)) {
    const hint = didYouMean(name, resource.fields.declared);
    ctx.report(path, `unknown field "${name}" of "${resource.name}"${hint}`, 'key');
  }
  return resource.fields.valid.get(name);
}

function checkWhen(ctx: CheckContext, resource: SalvagedResource, action: SalvagedAction, at: At): void {
  if (action.when === undefined) return;
  if (action.on === 'collection') {
    ctx.report(at('when'), 'when needs on: item: a collection action has no stored record to test', 'key');
    return;
  }
  checkWhenFields(ctx, resource, action.when, at);
}

/** The fields a `when` tests (of an item action, or of an update or delete rule): testable, with valid values. */
export function checkWhenFields(ctx: CheckContext, resource: SalvagedResource, when: WhenDef, at: At): void {
  for (const [name, expected] of Object.entries(when)) {
    const field = fieldFor(ctx, resource, name, at('when', name));
    if (field === undefined) continue;
    if (field.computed === true) {
      ctx.report(at('when', name), `"${name}" is computed: when tests stored values`, 'key');
      continue;
    }
    if (field.type === 'json') {
      ctx.report(at('when', name), `a json field cannot be tested in when`, 'key');
      continue;
    }
    if (field.writeOnly === true) {
      const why = 'when cannot test it, since the 409 it answers would reveal its value';
      ctx.report(at('when', name), `"${name}" is writeOnly: ${why}`, 'key');
      continue;
    }
    const values = Array.isArray(expected) ? expected : [expected];
    values.forEach((value, i) => {
      const problem = valueProblem(field, value, refIdKind(ctx, field));
      const path = Array.isArray(expected) ? at('when', name, i) : at('when', name);
      if (problem !== undefined) ctx.report(path, problem);
    });
  }
}

function checkSet(ctx: CheckContext, resource: SalvagedResource, action: SalvagedAction, at: At): void {
  if (action.set === undefined) return;
  if (action.on === 'collection') {
    ctx.report(at('set'), 'set needs on: item: a collection action has no stored record to change', 'key');
    return;
  }
  for (const [name, value] of Object.entries(action.set)) {
    const field = fieldFor(ctx, resource, name, at('set', name));
    if (field === undefined) continue;
    if (field.computed === true) {
      ctx.report(at('set', name), `"${name}" is computed: set writes stored values`, 'key');
      continue;
    }
    const problem =
      value === NOW
        ? field.type === 'date' || field.type === 'datetime'
          ? undefined
          : `now applies only to date and datetime fields; "${name}" is ${field.type}`
        : valueProblem(field, value, refIdKind(ctx, field));
    if (problem !== undefined) ctx.report(at('set', name), problem);
  }
}

function refIdKind(ctx: CheckContext, field: FieldObject): ReturnType<CheckContext['idKindOf']> {
  return field.type === 'ref' ? ctx.idKindOf(field.to) : undefined;
}

/**
 * A `method: get` action reads: it changes no record (no `set`, no `when` to test before a change), and its input
 * arrives as query parameters, which hold text, numbers, booleans and lists of them, not JSON.
 */
function checkReadOnly(ctx: CheckContext, action: SalvagedAction, at: At): void {
  if (action.method !== 'get') return;
  if (action.set !== undefined)
    ctx.report(at('set'), 'a method: get action changes nothing: set needs method: post', 'key');
  if (action.when !== undefined) {
    ctx.report(at('when'), 'a method: get action changes nothing to test first: when needs method: post', 'key');
  }
  for (const [name, field] of action.input?.valid ?? []) {
    if (field.type === 'json') {
      ctx.report(at('input', 'fields', name, 'type'), 'a query parameter cannot hold json: use method: post');
    }
  }
}

function checkInput(ctx: CheckContext, action: SalvagedAction, at: At): void {
  if (action.input === undefined) return;
  checkFields(ctx, {
    kind: 'input',
    path: at('input', 'fields'),
    declared: action.input.declared,
    fields: action.input.valid,
  });
}
