import type { Deprecation, Operation, Resource } from '../model.js';
import { isPublic, readCovers } from '../contract/access.js';
import { importsOf, usesOf, type Code, type Symbol } from './code.js';
import type { OwnerView } from './owner-view.js';
import { local, rt } from './symbols.js';
import { js } from './literal.js';
import { anOrA, nounOf } from '../naming.js';
import { inTemplateLiteral } from './sql/block.js';

/** One route of routes.ts: the partial that prints it (templates/partials/route-*.hbs) and its holes. */
export interface RouteView {
  partial: 'route-list' | 'route-create' | 'route-read' | 'route-write' | 'route-delete';
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** the request's types, for Fastify's generic */
  types: string;
  url: string;
  options: string;
  /** the owner argument of store calls: `, request.scope.owner` (a guarded route), `, null`, or nothing (no owner) */
  owner: string;
  /** `, <the caller's subject>` where the definition has `events` (the actor of the write's event), else nothing */
  actor: string;
  /** the body as the store takes it (the owner fields checked against the caller where a client writes them) */
  input: string;
  /** create: whether `input` checks owner fields (and is settled before the refs are) */
  owned: boolean;
  /**
   * create, PUT, PATCH: the store's write, inside References' check of the refs the body sends where the resource
   * has ref fields
   */
  write: string;
  /** PUT and PATCH: the body's variable */
  body: string;
  /** PUT, PATCH and DELETE: `() => problem` where the write's own conditions may refuse it (see writeIfMatch) */
  refused: string;
  /** create: the path of a new record, inside a template literal */
  location: string;
  /** PUT and PATCH: whether the update rule admits callers the read rule does not, who see nothing of the record */
  hidden: boolean;
  /** list and read: whether the route embeds the relations `include` names */
  embeds: boolean;
  /** the collection, for the embedder */
  resource: string;
}

export interface RoutesView {
  imports: string;
  routes: RouteView[];
  /** whether routes.ts has PUT, PATCH or DELETE, which honour If-Match (and need versionOf) */
  versionOf: boolean;
  /** whether a route answers 404 */
  missing: boolean;
  /** whether a create checks the owner fields of a body against the caller (and needs `owned`) */
  owned: boolean;
  /**
   * update and delete refused by their own conditions, with the options of whyRefused (see http/states.ts): the
   * states the rule allows, what it says of them, the owner fields an update may not give away; and whether the rule
   * admits callers the read rule does not (the 409 then tells them nothing of the record's state)
   */
  refusals: { op: 'update' | 'delete'; when: unknown[]; what: string; givers?: string[]; hidden: boolean }[];
  /** whether a write's reply is checked against the read rule (`reads`), and the owner fields that rule looks at */
  reads: boolean;
  /** whether PUT and PATCH answer 204 to a caller the update rule admits and the read rule does not */
  updateHidden: boolean;
  owners: string;
  /** what `owned` takes: an object type with the owner fields a create may leave out, and those fields */
  ownedType: string;
  ownedFields: string;
  /** the owner field's value for the caller's subject */
  fromSubject: string;
  /** the routes function's embedder parameter, where the resource has relations */
  embedderParam: string;
  /** whether a write's body may send ref fields (checked by References) */
  references: boolean;
  /** the resource's deprecation */
  deprecation?: Deprecation;
}

/** What each operation's routes print, and use. */
const KINDS: Record<
  Operation,
  { partial: RouteView['partial']; schema: string[]; model: string[]; uses: Symbol[]; methods: RouteView['method'][] }
> = {
  list: { partial: 'route-list', schema: ['listRoute'], model: ['ListQuery'], uses: [], methods: ['get'] },
  create: { partial: 'route-create', schema: ['createRoute'], model: ['Input'], uses: [rt.etagOf], methods: ['post'] },
  read: {
    partial: 'route-read',
    schema: ['readRoute'],
    model: ['Params'],
    uses: [rt.etagOf, rt.isFresh, rt.notFound],
    methods: ['get'],
  },
  update: {
    partial: 'route-write',
    schema: ['replaceRoute', 'patchRoute'],
    model: ['Params', 'Input', 'Patch'],
    uses: [rt.etagOf, rt.writeIfMatch, rt.notFound],
    methods: ['put', 'patch'],
  },
  delete: {
    partial: 'route-delete',
    schema: ['deleteRoute'],
    model: ['Params'],
    uses: [rt.writeIfMatch, rt.notFound],
    methods: ['delete'],
  },
};

/**
 * Which routes run the access guard: a public rule admits everyone and restricts no one, so its route needs no guard,
 * unless it needs the caller: a create that sets an owner field.
 */
export function guardedOperations(resource: Resource, owner: OwnerView | undefined): Record<Operation, boolean> {
  const needsCaller = (owner?.defaulted.length ?? 0) > 0 || owner?.readOnly === true;
  // an update of a resource whose owners a client writes is guarded even when public: only staff and the
  // administrator change who owns a record, and the guard says who the caller is
  const guarded = (op: Operation): boolean =>
    !isPublic(resource.access[op]) || (op === 'create' && needsCaller) || (op === 'update' && owner?.givable === true);
  return {
    list: guarded('list'),
    create: guarded('create'),
    read: guarded('read'),
    update: guarded('update'),
    delete: guarded('delete'),
  };
}

export function routesView(
  resource: Resource,
  owner: OwnerView | undefined,
  typeName: string,
  stillReferencedMessage: string,
  /** whether a body may send ref fields */
  refers: boolean,
  /** whether the definition has `events`: writes then name their actor */
  events = false,
  /** the administrator's role, which every rule admits */
  adminRole?: string,
): RoutesView {
  const guarded = guardedOperations(resource, owner);
  // a deprecated resource announces it on every response (see http/deprecation.ts)
  const deprecated = resource.deprecated === undefined ? '' : ', onRequest: deprecated';
  const path = `/${resource.name}`;
  const embeds = resource.relations.length > 0;
  // a create checks the owner fields a client writes (see auth/owner.ts); an update guarded by a rule (not public)
  // has its statement check that a caller who may not give records away keeps being one of the owners
  const ownedOn = (op: Operation): boolean => op === 'create' && (owner?.defaulted.length ?? 0) > 0;
  const gives = owner?.givable === true && guarded.update;
  const giver = gives ? ', giverOf(request.scope)' : owner?.givable === true ? ', null' : '';
  // the owner fields a caller who may not give records away keeps: one sent to a record they may not read is
  // refused as the owner change it is (403), before it could be a 409 of the ref
  const keeps = gives && owner !== undefined ? `, keeps: ownersKept(request.scope, ${js(owner.keys)})` : '';
  const uses: (Code | Symbol)[] = [];
  // why a write's own conditions refused it: the states its rule allows (`update: { access, when }`), an owner given
  // away (see writeIfMatch and http/states.ts)
  const noun = nounOf(resource.typeName);
  // a write whose rule admits callers the read rule does not shows them nothing of the record (see readCovers)
  const hides = (op: Operation): boolean =>
    resource.operations.includes(op) && !readCovers(resource.access.read, resource.access[op], adminRole);
  const refusals = (['update', 'delete'] as const).flatMap((op) => {
    const when = resource.writableWhen[op];
    const owners = op === 'update' && gives ? owner?.keys : undefined;
    if (!resource.operations.includes(op) || (when.length === 0 && owners === undefined)) return [];
    const what = `${anOrA(noun)} ${noun} can be ${op}d`;
    return [{ op, when, what, ...(owners !== undefined && { givers: owners }), hidden: hides(op) }];
  });
  // routes.ts registers the collection's routes, then the item's
  const order: Operation[] = ['list', 'create', 'read', 'update', 'delete'];
  const routes = order
    .filter((op) => resource.operations.includes(op))
    .flatMap((op) => {
      const kind = KINDS[op];
      uses.push(...kind.uses, ...kind.schema.map(local.schema), ...kind.model.map((m) => local.model(typeName + m)));
      if (guarded[op]) uses.push(rt.access);
      const config =
        op === 'create'
          ? `{ ...problems, idempotent: true${ownedOn(op) ? ', owned' : ''} }`
          : op === 'delete'
            ? `{ notFound: problems.notFound, constraintMessages: { foreignKey: ${js(stillReferencedMessage)} } }`
            : 'problems';
      const ownerArg = owner === undefined ? '' : guarded[op] ? ', request.scope.owner' : ', null';
      const createOwner = owner?.readOnly === true ? ', request.scope.caller?.subject ?? null' : '';
      const actor = actorArg(events, guarded[op]);
      const input = ownedOn(op) ? 'owned(request.body, request.scope)' : 'request.body';
      const writeOf = (method: RouteView['method']): string => {
        const call =
          method === 'post'
            ? `store.create(${ownedOn(op) ? 'input' : input}${createOwner}${actor})`
            : `store.${method === 'put' ? 'replace' : 'patch'}(id, ${method === 'put' ? 'input' : 'patch'}${ownerArg}, expected${giver}${actor})`;
        // a create that settles its owner fields tells References what it wrote (a 409 may name the one filled in)
        const settled =
          method === 'post' && ownedOn(op)
            ? ', { sent: request.body, written: input }'
            : // a ref sent back as stored needs no read check; not where the caller may not read the record (it
              // would tell them what it refers to)
              method !== 'post' && !hides(op)
              ? `, { stored: async () => (await store.get(id${ownerArg}))?.record${keeps} }`
              : '';
        return refers ? `references.write(request, () => ${call}${settled})` : call;
      };
      return kind.methods.map((method, i): RouteView => ({
        partial: kind.partial,
        method,
        types:
          embeds && op === 'read'
            ? `{ Params: ${typeName}Params; Querystring: ${typeName}ReadQuery }`
            : requestTypes(op, method, typeName),
        url: js(op === 'list' || op === 'create' ? path : `${path}/:id`),
        options: `{ schema: ${kind.schema[i]}, config: ${config}${guarded[op] ? `, preParsing: authorizer.guard(access.${op})` : ''}${deprecated} }`,
        owner: ownerArg,
        actor,
        input,
        owned: ownedOn(op),
        write: writeOf(method),
        refused: refusals.some((r) => r.op === op)
          ? `() => ${op}Refused(id${ownerArg}${hides(op) ? ', request' : ''})`
          : '',
        hidden: op === 'update' && hides(op),
        body: method === 'put' ? 'input' : 'patch',
        location: inTemplateLiteral(path),
        embeds: embeds && (op === 'list' || op === 'read'),
        resource: js(resource.name),
      }));
    });
  const owned = resource.operations.some(ownedOn);
  const ownedUses = [
    ...(owned ? [rt.Scope, rt.withOwners, ...(owner?.integer === true ? [rt.codec('subjectAsId')] : [])] : []),
    ...(gives && resource.operations.includes('update') ? [rt.giverOf, rt.gaveAway] : []),
    ...(gives && refers && !hides('update') ? [rt.ownersKept] : []),
    ...(refusals.length > 0 ? [rt.whyRefused] : []),
  ];
  const has = (op: Operation): boolean => resource.operations.includes(op);
  const reads = hides('update') || refusals.some((r) => r.hidden);
  return {
    imports: importsOf([
      rt.FastifyInstance,
      rt.Authorizer,
      rt.RouteProblemConfig,
      // a path with a route refuses the methods it does not take
      ...(resource.operations.length > 0 ? [rt.refuseOtherMethods] : []),
      ...usesOf(uses),
      ...ownedUses,
      ...(embeds ? [rt.Embedder, ...(has('read') ? [local.model(`${typeName}ReadQuery`)] : [])] : []),
      ...(refers ? [rt.References] : []),
      ...(resource.deprecated !== undefined ? [rt.announceDeprecation] : []),
      ...(reads ? [rt.FastifyRequest, rt.access] : []),
      local.store(`${resource.names.pascal}Store`),
    ]),
    reads,
    updateHidden: hides('update'),
    owners: js(resource.owners),
    embedderParam: embeds ? ', embedder: Embedder' : '',
    references: refers,
    ...(resource.deprecated !== undefined && { deprecation: resource.deprecated }),
    routes,
    versionOf: has('update') || has('delete'),
    missing: has('read') || has('update') || has('delete'),
    owned,
    refusals,
    ownedType: `{ ${(owner?.defaulted ?? []).map((o) => `${o.key}?: ${o.type}`).join('; ')} }`,
    ownedFields: `{ keys: ${js(owner?.defaulted.map((o) => o.key) ?? [])}, required: ${js(
      owner?.defaulted.filter((o) => o.required).map((o) => o.key) ?? [],
    )} }`,
    fromSubject: owner?.integer === true ? 'subjectAsId(scope.caller.subject)' : 'scope.caller.subject',
  };
}

function requestTypes(op: Operation, method: RouteView['method'], typeName: string): string {
  if (op === 'list') return `{ Querystring: ${typeName}ListQuery }`;
  if (op === 'create') return `{ Body: ${typeName}Input }`;
  if (method === 'put') return `{ Params: ${typeName}Params; Body: ${typeName}Input }`;
  if (method === 'patch') return `{ Params: ${typeName}Params; Body: ${typeName}Patch }`;
  return `{ Params: ${typeName}Params }`;
}

/**
 * The actor argument of a store's write where the definition has `events`: the subject of the request's verified
 * token on a guarded route, null on one that runs no guard (its caller is not verified).
 */
export const actorArg = (events: boolean, guarded: boolean | undefined): string =>
  !events ? '' : guarded === true ? ', request.scope.caller?.subject ?? null' : ', null';
