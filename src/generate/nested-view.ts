import type { Api, Relation, Resource } from '../model.js';
import {
  linkParameterName,
  linkRelations,
  nestedCreates,
  nestedDeprecation,
  nestedRelations,
  targetOf,
} from '../contract/relations.js';
import { ownerView } from './owner-view.js';
import { actorArg, guardedOperations } from './routes-view.js';
import { anOrA, nounOf } from '../naming.js';
import { inTemplateLiteral } from './sql/block.js';
import { idType } from './typescript.js';
import { js } from './literal.js';
import { Imports } from './import-lines.js';
import { linkView, type LinkView } from './link-view.js';

/** `GET /authors/{id}/books`: the books whose authorId is the author's id. */
export interface NestedListView {
  /** many-to-many: the relation's name, whose links the listing goes through (see Embedder.linkedTo) */
  linked?: string;
  querystring: string;
  page: string;
  listQueryType: string;
  guard: string;
  /** the owner argument of the target store's list: `, request.scope.owner`, `, null`, or nothing */
  owner: string;
}

/** `POST /authors/{id}/books`: a book whose authorId is the author's id, by the books' own create rule. */
export interface NestedCreateView {
  bodyType: string;
  options: string;
  /** the target's References (see NestedView.references), and the create that goes through it */
  references: string;
  problems: string;
  /** whether `input` checks owner fields (and is settled before the refs are) */
  owned: boolean;
  /** the body with the parent's ref */
  placed: string;
  input: string;
  write: string;
  /** the new record's path, inside a template literal */
  location: string;
}

/** One path of nested.ts: `/authors/:id/books`, its listing and its create. */
export interface NestedRouteView {
  url: string;
  /** the target's collection (for the embedder) and its camelCase name (its store in `stores`) */
  target: string;
  targetCamel: string;
  field: string;
  list?: NestedListView;
  create?: NestedCreateView;
  methods: string;
}

export interface NestedView {
  imports: string;
  parent: string;
  /** the TypeScript type of its id */
  idType: string;
  paramsType: string;
  notFoundMessage: string;
  /** whether a route creates records (and the routes function takes the prefix, for Location) */
  creates: boolean;
  /** whether a route lists or links through a join resource (and the routes function takes the links) */
  links: boolean;
  routes: NestedRouteView[];
  /** the References of each target a route creates records of: the refs of a body, by the target's problems */
  references: { name: string; problems: string }[];
  linkRoutes: LinkView[];
  /** the README's rows for these routes */
  readme: { request: string; answer: string }[];
}

/** The nested routes under `resource`'s records, one path per to-many relation; undefined when it has none. */
export function nestedView(api: Api, resource: Resource, notFoundMessage: string): NestedView | undefined {
  const listed = nestedRelations(api, resource);
  const created = nestedCreates(api, resource);
  const linked = linkRelations(api, resource);
  const relations = resource.relations.filter((r) => listed.includes(r) || created.includes(r));
  if (relations.length === 0 && linked.length === 0) return undefined;
  // the runtime's imports first, then this resource's, then each target's
  const runtime = '../..';
  const imports = new Imports();
  imports.add('fastify', 'type FastifyInstance', 'type FastifyRequest');
  imports.add(`${runtime}/auth/authorize.js`, 'type Authorizer');
  imports.add(`${runtime}/auth/verify.js`, 'type Caller');
  if (created.length > 0) imports.add(`${runtime}/http/etag.js`, 'etagOf');
  imports.add(`${runtime}/http/methods.js`, 'refuseOtherMethods');
  imports.add(`${runtime}/http/problem.js`, 'notFound');
  imports.add(`${runtime}/relations/embed.js`, 'type Embedder');
  if (linked.length > 0 || relations.some((r) => r.through !== undefined)) {
    imports.add(`${runtime}/relations/links.js`, 'type Links');
  }
  if (created.length > 0) {
    imports.add(`${runtime}/relations/parent.js`, 'underParent');
    imports.add(`${runtime}/relations/references.js`, 'References');
  }
  imports.add('../index.js', 'type Stores');
  imports.add('./model.js', `type ${resource.typeName}Params`);
  // a path under a deprecated resource, of a deprecated one, or through a deprecated join resource announces it too,
  // 405s included (see http/deprecation.ts and nestedDeprecation)
  const hookOf = (relation: Relation): string | undefined => {
    const announcer = nestedDeprecation(api, resource, relation);
    if (announcer === undefined) return undefined;
    if (announcer === resource) {
      imports.add('./routes.js', 'deprecated');
      return 'deprecated';
    }
    imports.add(`../${announcer.names.kebab}/routes.js`, `deprecated as ${announcer.names.camel}Deprecated`);
    return `${announcer.names.camel}Deprecated`;
  };
  const announced = (options: string, hook: string | undefined): string =>
    hook === undefined ? options : options.replace(/ \}$/, `, onRequest: ${hook} }`);
  imports.add('./schemas.js', 'params');
  const routes = relations.map((relation): NestedRouteView => {
    const target = targetOf(api, relation);
    const guarded = guardedOperations(target, ownerView(api, target));
    const list = listed.includes(relation) ? nestedList(target, guarded.list, imports) : undefined;
    const hook = hookOf(relation);
    if (list !== undefined && hook !== undefined) list.guard += `, onRequest: ${hook}`;
    if (list !== undefined && relation.through !== undefined) list.linked = js(relation.name);
    const found = created.includes(relation) ? nestedCreate(api, relation, target, guarded.create, imports) : undefined;
    const create = found === undefined ? undefined : { ...found, options: announced(found.options, hook) };
    return {
      url: js(`/${resource.name}/:id/${relation.names.kebab}`),
      target: js(target.name),
      targetCamel: target.names.camel,
      field: js(relation.field),
      ...(list !== undefined && { list }),
      ...(create !== undefined && { create }),
      methods: js([...(list ? ['GET'] : []), ...(create ? ['POST'] : [])]) + (hook === undefined ? '' : `, ${hook}`),
    };
  });
  // before imports are printed: a link route may import its target's deprecation
  const linkRoutes = linked.map(({ relation, put, delete: del }) => {
    const view = linkView(api, resource, relation, { put, delete: del }, imports);
    const hook = hookOf(relation);
    return {
      ...view,
      methods: view.methods + (hook === undefined ? '' : `, ${hook}`),
      ...(view.put !== undefined && { put: { ...view.put, options: announced(view.put.options, hook) } }),
      ...(view.delete !== undefined && {
        delete: { ...view.delete, options: announced(view.delete.options, hook) },
      }),
    };
  });
  const creates = routes.flatMap((r) => (r.create === undefined ? [] : [r.create]));
  const references = [...new Map(creates.map((c) => [c.references, c.problems]))].map(([name, problems]) => ({
    name,
    problems,
  }));
  return {
    imports: imports.print(),
    references,
    parent: js(resource.name),
    idType: idType(resource.id),
    paramsType: `${resource.typeName}Params`,
    notFoundMessage: js(notFoundMessage),
    creates: created.length > 0,
    links: linked.length > 0 || relations.some((r) => r.through !== undefined),
    routes,
    readme: [
      ...relations.flatMap((relation) => {
        const target = targetOf(api, relation);
        const path = `/${resource.name}/{id}/${relation.names.kebab}`;
        const what =
          relation.through === undefined
            ? `the ${target.name} whose \`${relation.field}\` is the ${nounOf(resource.typeName)}`
            : `the ${target.name} linked to the ${nounOf(resource.typeName)} (through ${relation.through.resource})`;
        return [
          ...(listed.includes(relation) ? [{ request: `GET ${path}`, answer: `200 a page of ${what}` }] : []),
          ...(created.includes(relation)
            ? [
                {
                  request: `POST ${path}`,
                  answer: `201 ${anOrA(nounOf(target.typeName))} ${nounOf(target.typeName)} created with \`${relation.field}\` = \`{id}\``,
                },
              ]
            : []),
        ];
      }),
      ...linked.flatMap(({ relation, put, delete: del }) => {
        const target = targetOf(api, relation);
        const path = `/${resource.name}/{id}/${relation.names.kebab}/{${linkParameterName(resource, target)}}`;
        return [
          ...(put ? [{ request: `PUT ${path}`, answer: '204: linked (idempotent)' }] : []),
          ...(del ? [{ request: `DELETE ${path}`, answer: '204: unlinked (404 when not linked)' }] : []),
        ];
      }),
    ],
    linkRoutes,
  };
}

/** The target's access rules, imported under its name, as a route's guard option. */
function guardOf(target: Resource, op: 'list' | 'create', imports: Imports): string {
  const alias = target.names.camel;
  imports.add(`../${target.names.kebab}/access.js`, `access as ${alias}Access`);
  return `, preParsing: authorizer.guard(${alias}Access.${op})`;
}

function nestedList(target: Resource, guarded: boolean, imports: Imports): NestedListView {
  const alias = target.names.camel;
  const folder = `../${target.names.kebab}`;
  imports.add(`${folder}/schemas.js`, `listQuery as ${alias}ListQuery`, `page as ${alias}Page`);
  imports.add(`${folder}/model.js`, `type ${target.typeName}ListQuery`);
  return {
    querystring: `${alias}ListQuery`,
    page: `${alias}Page`,
    listQueryType: `${target.typeName}ListQuery`,
    guard: guarded ? guardOf(target, 'list', imports) : '',
    owner: target.owners.length === 0 ? '' : guarded ? ', request.scope.owner' : ', null',
  };
}

function nestedCreate(
  api: Api,
  relation: Relation,
  target: Resource,
  guarded: boolean,
  imports: Imports,
): NestedCreateView {
  const alias = target.names.camel;
  const folder = `../${target.names.kebab}`;
  // the name of the to-one relation on the target, as resource-view.ts names the body's type and schema: the target's
  // input under that record
  const toOne = target.relations.find((r) => r.kind === 'one' && r.field === relation.field);
  if (toOne === undefined) throw new Error(`${target.name} has no relation by ${relation.field}`);
  const under = toOne.names.pascal;
  const owner = ownerView(api, target);
  const owned = (owner?.defaulted.length ?? 0) > 0;
  const body = `${alias}InputUnder${under}`;
  imports.add(`${folder}/schemas.js`, `record as ${alias}Record`, `inputUnder${under} as ${body}`);
  imports.add(`${folder}/model.js`, `type ${target.typeName}InputUnder${under}`);
  imports.add(`${folder}/routes.js`, ...(owned ? [`owned as ${alias}Owned`] : []), `problems as ${alias}Problems`);
  const placed = `underParent(request.body, ${js(relation.field)}, request.params.id)`;
  // an owned create settles its owners on the body with its parent's ref, and tells References both (see routes-view)
  const input = owned ? `${alias}Owned(body, request.scope)` : placed;
  const createOwner = owner?.readOnly === true ? ', request.scope.caller?.subject ?? null' : '';
  const guard = guarded ? guardOf(target, 'create', imports) : '';
  return {
    bodyType: `${target.typeName}InputUnder${under}`,
    options: `{ schema: { params, body: ${body}, response: { 201: ${alias}Record } }, config: { ...${alias}Problems, idempotent: true, notFound: notFoundMessage${owned ? `, owned: ${alias}Owned` : ''} }${guard} }`,
    references: `${alias}References`,
    problems: `${alias}Problems`,
    owned,
    placed,
    input,
    write: `${alias}References.write(request, () => stores.${target.names.camel}.create(${owned ? 'input' : input}${createOwner}${actorArg(api.events !== undefined, guarded)})${owned ? ', { sent: body, written: input }' : ''})`,
    location: inTemplateLiteral(`/${target.name}`),
  };
}
