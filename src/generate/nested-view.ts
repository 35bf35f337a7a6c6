import type { Api, Resource } from '../model.js';
import { isPublic } from '../contract/access.js';
import { nestedRelations, targetOf } from '../contract/relations.js';
import { js } from './typescript.js';

/** One nested listing of nested.ts: `GET /authors/{id}/books`, the books whose authorId is the author's id. */
export interface NestedRouteView {
  url: string;
  /** the target's collection (for the embedder) and its camelCase name (its store in `stores`) */
  target: string;
  targetCamel: string;
  field: string;
  /** the target's imports, aliased by its camelCase name */
  listQuery: string;
  page: string;
  listQueryType: string;
  guard: string;
  /** the owner argument of the target store's list: `, request.scope.owner`, `, null`, or nothing */
  owner: string;
}

export interface NestedView {
  imports: string;
  parent: string;
  paramsType: string;
  notFoundMessage: string;
  routes: NestedRouteView[];
}

/** The nested listings under `resource`'s records, one per to-many relation; undefined when it has none. */
export function nestedView(api: Api, resource: Resource, notFoundMessage: string): NestedView | undefined {
  const relations = nestedRelations(api, resource);
  if (relations.length === 0) return undefined;
  // [what, module]: printed as import lines, the runtime's first, then this resource's, then each target's
  const runtime = '../..';
  const imports = new Map<string, string>([
    ['type { FastifyInstance }', 'fastify'],
    ['type { Authorizer }', `${runtime}/auth/authorize.js`],
    ['{ refuseOtherMethods }', `${runtime}/http/methods.js`],
    ['{ notFound }', `${runtime}/http/problem.js`],
    ['type { Embedder }', `${runtime}/relations/embed.js`],
    ['type { Stores }', '../index.js'],
    [`type { ${resource.typeName}Params }`, './model.js'],
    ['{ params }', './schemas.js'],
  ]);
  const routes = relations.map((relation): NestedRouteView => {
    const target = targetOf(api, relation);
    const alias = target.names.camel;
    const guarded = !isPublic(target.access.list);
    const folder = `../${target.names.kebab}`;
    if (guarded) imports.set(`{ access as ${alias}Access }`, `${folder}/access.js`);
    imports.set(`{ listQuery as ${alias}ListQuery, page as ${alias}Page }`, `${folder}/schemas.js`);
    imports.set(`type { ${target.typeName}ListQuery }`, `${folder}/model.js`);
    const owned = target.owner !== undefined;
    return {
      url: js(`/${resource.name}/:id/${relation.names.kebab}`),
      target: js(target.name),
      targetCamel: alias,
      field: js(relation.field),
      listQuery: `${alias}ListQuery`,
      page: `${alias}Page`,
      listQueryType: `${target.typeName}ListQuery`,
      guard: guarded ? `, preParsing: authorizer.guard(${alias}Access.list)` : '',
      owner: !owned ? '' : guarded ? ', request.scope.owner' : ', null',
    };
  });
  return {
    imports: [...imports].map(([what, module]) => `import ${what} from ${js(module)};`).join('\n'),
    parent: js(resource.name),
    paramsType: `${resource.typeName}Params`,
    notFoundMessage: js(notFoundMessage),
    routes,
  };
}
