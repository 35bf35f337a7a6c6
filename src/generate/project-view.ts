import type { Api } from '../model.js';
import { needsTokens } from '../contract/access.js';
import type { SqlDialect } from '../schema/dialect.js';
import type { ResourceView } from './resource-view.js';
import { resourceViews } from './view-memo.js';
import { fixtures, type Fixture } from './fixtures.js';
import type { RelationView } from './relations-view.js';
import { matrixView, type ActionsView, type ListingView, type MatrixFixture, type MatrixView } from './matrix-view.js';
import type { ReachView } from './reach-view.js';
import { relationMap, targetOf } from '../contract/relations.js';
import { tsKey } from './literal.js';
import { followedReferrersOf } from '../contract/referrers.js';
import { problemKinds, type ProblemKindRow } from '../contract/problems.js';

/** What the project-wide templates print. */
export interface ProjectView {
  name: string;
  version: string;
  title: string;
  source: string;
  prefix: string;
  /** problem types are `<problemsBase>/<kind>` (see runtime/src/http/problem-kinds.ts) */
  problemsBase: string;
  /** whether problem types are references relative to the documents' URLs (no `problems.base`) */
  problemsRelative: boolean;
  /** the kinds of problem, for the README's table */
  problemKinds: ProblemKindRow[];
  defaultDatabaseUrl: string;
  bodyLimit: number;
  pageSize: { default: number; max: number };
  resources: ResourceView[];
  migrations: { name: string; ident: string }[];
  fixtures: Fixture[];
  /** test/generated/access.test.ts: how to make records, and the access matrix of each resource */
  access: {
    fixtures: Record<string, MatrixFixture>;
    matrix: Record<string, MatrixView>;
    actions: ActionsView[];
    listings: ListingView[];
    feeds: Record<string, MatrixView>;
    reaches: ReachView[];
    relations: RelationView[];
  };
  needsTokens: boolean;
  rateLimit: { max: number; windowMs: number };
  adminRole: string;
  /** http/cors.ts's settings, or null */
  cors: object | null;
  corsAnyOrigin: boolean;
  /** events/routes.ts's settings (`events` of the definition), or null */
  eventSettings: object | null;
  /** the same, and an example of an event's type, for the README */
  events: object | null;
  /**
   * with events: by resource, the refs of other resources to its records that a delete follows (cascade, setNull),
   * for the events of the records it reaches (see db/cascade.ts)
   */
  referrers: Record<string, { holder: string; column: string; onDelete: string }[]> | null;
  /** the resources with relations, by their key in an object literal: the embedder's targets */
  relationTargets: { key: string; camel: string }[];
  /** by resource and relation name: what the embedder needs (see relations/embed.ts) */
  relationMap: object;
  hasRelations: boolean;
  /** whether a many-to-many relation exists (its routes use relations/links.ts) */
  hasLinks: boolean;
  includeDepth: number;
  /** `limits.include.maxRecords`: the most records one request may embed */
  includeMaxRecords: number;
  /** a filter through a relation of this API, for the README: `/books?author.country=FR` */
  filterExample: string;
  /** the README's example of a route of the user's own: a report over a resource that has a listing */
  customRoute?: { name: string; camel: string; ownerArg: string };
}

export function projectView(
  api: Api,
  context: { source: string; migrations: readonly string[]; orphanHandlers: ReadonlyMap<string, readonly string[]> },
  dialects: readonly SqlDialect[],
): ProjectView {
  const { source } = context;
  const testFixtures = fixtures(api);
  return {
    name: api.name,
    version: api.version,
    title: api.title ?? api.name,
    source,
    prefix: api.prefix,
    problemsBase: api.problemsBase,
    problemsRelative: api.problemsBase.startsWith('/'),
    problemKinds: problemKinds(api),
    defaultDatabaseUrl: `sqlite:./data/${api.name}.db`,
    bodyLimit: api.limits.bodySize,
    pageSize: api.limits.pageSize,
    resources: resourceViews(api, context.orphanHandlers),
    migrations: context.migrations.map((name) => ({ name, ident: `m${name.slice(0, 4)}` })),
    fixtures: testFixtures,
    access: matrixView(api, testFixtures),
    needsTokens: needsTokens(api),
    rateLimit: api.limits.rateLimit,
    adminRole: api.auth.adminRole,
    cors: api.cors ?? null,
    corsAnyOrigin: api.cors?.origins === '*',
    eventSettings: api.events === undefined ? null : { ...api.events, ...renamedResources(api) },
    events:
      api.events === undefined
        ? null
        : {
            ...api.events,
            example: { resource: api.resources[0]?.name ?? '', type: `${api.resources[0]?.name ?? ''}.created` },
          },
    referrers: api.events === undefined ? null : referrers(api),
    relationMap: relationMap(api),
    hasRelations: api.resources.some((r) => r.relations.length > 0),
    hasLinks: api.resources.some((r) => r.relations.some((relation) => relation.through !== undefined)),
    relationTargets: api.resources
      .filter((r) => r.relations.length > 0)
      .map((r) => ({ key: tsKey(r.name), camel: r.names.camel })),
    includeDepth: api.limits.includeDepth,
    includeMaxRecords: api.limits.include.maxRecords,
    filterExample: filterExample(api),
    ...customRoute(api),
  };
}

/** Each resource's referrers that a delete follows (cascade and setNull refs to it), for the event log. */
function referrers(api: Api): ProjectView['referrers'] {
  const byResource = api.resources
    .map((resource) => {
      const list = followedReferrersOf(api, resource.name).map(({ from, field, ref }) => ({
        holder: from.names.camel,
        column: field.column,
        onDelete: ref.onDelete,
      }));
      return [resource.names.camel, list] as const;
    })
    .filter(([, list]) => list.length > 0);
  return byResource.length === 0 ? null : Object.fromEntries(byResource);
}

/** The resource the README's own-route example reports on: the first with a listing. */
function customRoute(api: Api): Pick<ProjectView, 'customRoute'> {
  const resource = api.resources.find((r) => r.operations.includes('list'));
  if (resource === undefined) return {};
  const ownerArg = resource.owners.length > 0 ? ', request.scope.owner' : '';
  return { customRoute: { name: resource.name, camel: resource.names.camel, ownerArg } };
}

/**
 * A filter through a relation of this API, for the README: an enum field's first value (`/books?author.country=FR`),
 * else a substring of a string field (`/books?author.fullName[contains]=a`).
 */
function filterExample(api: Api): string {
  const toOne = api.resources.flatMap((resource) =>
    resource.relations
      .filter((r) => r.kind === 'one')
      .map((relation) => ({ resource, relation, fields: targetOf(api, relation).fields.filter((f) => !f.writeOnly) })),
  );
  for (const { resource, relation, fields } of toOne) {
    const value = fields.find((f) => f.type === 'enum')?.values?.[0];
    const field = fields.find((f) => f.type === 'enum');
    if (field !== undefined && value !== undefined) {
      return `/${resource.name}?${relation.name}.${field.name}=${encodeURIComponent(value)}`;
    }
  }
  for (const { resource, relation, fields } of toOne) {
    const field = fields.find((f) => f.type === 'string' || f.type === 'text');
    if (field !== undefined) return `/${resource.name}?${relation.name}.${field.name}[contains]=a`;
  }
  return '/{collection}?{relation}.{field}=value';
}

/** `renamed` of the event settings: old name → new of each resource with `renamedFrom` (none: left out). */
function renamedResources(api: Api): { renamed?: Record<string, string> } {
  const renamed = api.resources.flatMap((r) => (r.renamedFrom === undefined ? [] : [[r.renamedFrom, r.name] as const]));
  return renamed.length === 0 ? {} : { renamed: Object.fromEntries(renamed) };
}
