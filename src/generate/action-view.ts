import { actorArg } from './routes-view.js';
import type { Action, Api, Resource } from '../model.js';
import { actionHides, isPublic } from '../contract/access.js';
import { actionInputSchema, type JsonSchema } from '../contract/json-schemas.js';
import { importsOf, type Symbol } from './code.js';
import { local, rt } from './symbols.js';
import { inputType } from './typescript.js';
import { js } from './literal.js';
import { nounOf } from '../naming.js';
import { ownersSetBy } from './sql/statements.js';

/** What the templates print for one action: the partials of its declarations and its route, and their holes. */
export interface ActionView {
  name: string;
  /** the action's own deprecation, as a JS literal (its const is `<camel>Deprecated`) */
  deprecation?: string;
  camel: string;
  pascal: string;
  item: boolean;
  path: string;
  /** the path as documentation writes it: `/posts/{id}/publish` */
  displayPath: string;
  doc: string;
  /** a `set` action runs one generated UPDATE; the others call a handler in a user-owned file */
  generated: boolean;
  /** whether the route runs the access guard: a public `set` action needs no caller */
  guarded: boolean;
  /** `post`, or `get` for a read-only action (input as query parameters); the methods its path takes */
  method: 'post' | 'get';
  methodUpper: string;
  get: boolean;
  /** a handler action whose success the route records as an event (`events`; GET actions change nothing) */
  recordsEvent: boolean;
  allowed: string[];
  /** what a stub's notImplemented takes: the path, or `GET <path>` */
  stubRoute: string;
  /** templates/partials/action-*.hbs */
  declarations: 'action-set' | 'action-handler';
  route: 'action-set-route' | 'action-handler-route';
  inputProperties: { key: string; type: string; optional: string }[];
  hasInput: boolean;
  inputSchema: JsonSchema;
  /** the name of the body's type, and the handler's `input` */
  inputType: string;
  input: string;
  /** the route's request types, options, and owner argument of store calls */
  types: string;
  options: string;
  /** `, <hook>`: the deprecation hook the path's 405 runs too, or nothing */
  refuseHook: string;
  /** the actor argument of the store's write (see routes-view.ts), or nothing */
  actor: string;
  owner: string;
  /**
   * a `set` action that writes owner fields: `, giverOf(request.scope)` (`, null` for a public one), the caller who
   * may not give records away and keeps them as they are (see auth/owner.ts), and the owner fields it sets, as a JS
   * literal, for the 403 of a refusal; else nothing
   */
  giver: string;
  givers: string;
  /**
   * when a refusal is the 403 of owner fields given away: the record in a state its `when` allows, and, where the
   * caller may not read it, readable to them (else the 403 would tell them its state)
   */
  gaveAwayWhen: string;
  /** the conditions of `when` in words, and the start of the 409 detail when it fails (from the definition: escape
   * wherever they are printed) */
  whenText: string;
  refusal: string;
  whenFields: string[];
  /** the `when` as http/states.ts's States, for the check a handler's action makes before its handler runs */
  whenStates: string;
  /**
   * an item action whose rule admits callers the read rule does not: they are shown nothing of the record (a `set`
   * action's 204, a 409 without its state; see readCovers)
   */
  hidden: boolean;
}

export function actionView(api: Api, resource: Resource, action: Action, typeName: string, owned: boolean): ActionView {
  const item = action.on === 'item';
  const path = item ? `/${resource.name}/:id/${action.name}` : `/${resource.name}/${action.name}`;
  const generated = action.set.length > 0;
  const hidden = item && (generated || action.when.length > 0) && actionHides(resource, action, api.auth.adminRole);
  const guarded = !generated || !isPublic(action.access);
  const hasInput = action.input.length > 0;
  const get = action.method === 'get';
  const inputTypeName = `${typeName}${action.names.pascal}Input`;
  const body = hasInput ? `${action.names.camel}Input` : get ? 'NO_QUERY' : 'NO_BODY';
  // a read-only action's input is its query string
  const part = get ? 'querystring' : 'body';
  const schema = generated
    ? `{ params, body: ${body}, response: { 200: record } }`
    : `{ ${item ? 'params, ' : ''}${part}: ${body} }`;
  // a handler is always given a body (an empty one at most); a set action only when it declares input
  const requestTypes = [
    ...(item ? [`Params: ${typeName}Params`] : []),
    ...(hasInput || !generated ? [`${get ? 'Querystring' : 'Body'}: ${inputTypeName}`] : []),
  ];
  const methodUpper = get ? 'GET' : 'POST';
  const givers = ownersSetBy(resource, action).map((f) => f.name);
  return {
    name: action.name,
    camel: action.names.camel,
    pascal: action.names.pascal,
    item,
    path,
    displayPath: path.replace(':id', '{id}'),
    doc: action.description ?? `${methodUpper} ${path.replace(':id', '{id}')}`,
    method: action.method,
    methodUpper,
    recordsEvent: api.events !== undefined && !generated && !get,
    get,
    allowed: [methodUpper],
    // the path a client calls, prefix included: the 501 names it
    stubRoute: `${methodUpper} ${api.prefix}${path}`,
    generated,
    guarded,
    declarations: generated ? 'action-set' : 'action-handler',
    route: generated ? 'action-set-route' : 'action-handler-route',
    inputProperties: action.input.map((f) => ({
      key: f.name,
      type: inputType(api, f),
      // a query's defaults are filled in before the handler runs (a body's are not: http/validator.ts)
      optional: f.required || (get && f.default !== undefined) ? '' : '?',
    })),
    hasInput,
    inputSchema: actionInputSchema(api, action),
    inputType: inputTypeName,
    input: hasInput ? (get ? 'request.query' : 'request.body') : '{}',
    types: `{ ${requestTypes.join('; ')} }`,
    ...(action.deprecated !== undefined && { deprecation: js(action.deprecated) }),
    options: `{ schema: ${schema}${config(get, item, typeName)}${guarded ? `, preParsing: authorizer.guard(access.${action.names.camel})` : ''}${announced(resource, action)} }`,
    owner: !owned ? '' : guarded ? ', request.scope.owner' : ', null',
    actor: actorArg(api.events !== undefined, guarded),
    giver: givers.length === 0 ? '' : guarded ? ', giverOf(request.scope)' : ', null',
    givers: givers.length === 0 || !guarded ? '' : js(givers),
    gaveAwayWhen: `inStates(outcome.record, ${js(action.when)})${hidden ? ' && (await reads(request, outcome.record))' : ''}`,
    whenText: whenText(action),
    refusal: `${action.name} needs ${whenText(action)}`,
    whenFields: action.when.map((w) => w.field),
    whenStates: js(action.when),
    hidden,
    refuseHook: announced(resource, action).replace(', onRequest: ', ', '),
  };
}

/** An action route's config: POSTs honour Idempotency-Key; an item's id naming no record is the resource's 404. */
function config(get: boolean, item: boolean, typeName: string): string {
  const settings = [
    ...(get ? [] : ['idempotent: true']),
    ...(item ? [`notFound: ${js(`no ${nounOf(typeName)} has this id`)}`] : []),
  ];
  return settings.length === 0 ? '' : `, config: { ${settings.join(', ')} }`;
}

/** The onRequest hook of a deprecated action, or of an action of a deprecated resource (see http/deprecation.ts). */
function announced(resource: Resource, action: Action): string {
  if (action.deprecated !== undefined) return `, onRequest: ${action.names.camel}Deprecated`;
  return resource.deprecated !== undefined ? ', onRequest: deprecated' : '';
}

function whenText(action: Action): string {
  return action.when
    .map(
      (w) =>
        `${w.field} ${w.values.length === 1 ? 'to be' : 'to be one of'} ${w.values.map((v) => JSON.stringify(v)).join(', ')}`,
    )
    .join(' and ');
}

/** The imports of actions.ts, from what its actions print. */
export function actionImports(
  resource: Resource,
  actions: readonly ActionView[],
  orphans: boolean,
  typeName: string,
): string {
  const set = actions.filter((a) => a.generated);
  const handlers = actions.filter((a) => !a.generated);
  const uses: Symbol[] = [
    rt.FastifyInstance,
    rt.Authorizer,
    rt.refuseOtherMethods,
    local.store(`${resource.names.pascal}Store`),
    ...(actions.some((a) => !a.hasInput && !a.get) ? [rt.NO_BODY] : []),
    ...(actions.some((a) => !a.hasInput && a.get) ? [rt.NO_QUERY] : []),
    ...(actions.some((a) => a.guarded || a.hidden) ? [rt.access] : []),
    ...(actions.some((a) => a.hidden) ? [rt.FastifyRequest] : []),
    ...(actions.some((a) => a.item) ? [local.schema('params'), local.model(`${typeName}Params`)] : []),
    ...(set.length > 0
      ? [
          rt.etagOf,
          rt.expectedVersion,
          rt.parseIfMatch,
          rt.preconditionFailed,
          rt.conflict,
          rt.notFound,
          local.schema('record'),
        ]
      : []),
    ...(set.length > 0 || handlers.some((a) => a.item) || orphans ? [local.model(typeName)] : []),
    ...(handlers.some((a) => a.item) ? [rt.notFound] : []),
    ...(handlers.some((a) => a.item && !a.get) ? [rt.parseIfMatch, rt.matchesIfMatch, rt.preconditionFailed] : []),
    ...(handlers.some((a) => a.whenFields.length > 0) ? [rt.inStates, rt.conflict] : []),
    // a set action that writes owner fields: who may not give records away, the 403 of one that tried
    ...(set.some((a) => a.givers !== '') ? [rt.giverOf, rt.gaveAway, rt.inStates] : []),
    ...(handlers.length > 0 ? [rt.Caller, rt.ActionResult, rt.etagOf] : []),
    ...(orphans || resource.actions.some((a) => a.input.some((f) => f.type === 'json')) ? [rt.JsonValue] : []),
    ...(resource.deprecated !== undefined || actions.some((a) => a.deprecation !== undefined)
      ? [rt.announceDeprecation]
      : []),
  ];
  return importsOf(uses);
}
