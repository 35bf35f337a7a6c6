import type { Symbol } from './code.js';

/**
 * The names generated resource files import, by the module that exports them (runtime/src, as a file of
 * src/resources/<name>/ reaches it). A view prints them through `code`, so that its file imports what it uses.
 */
const from =
  (module: string, type = false) =>
  (name: string, as?: string): Symbol => ({
    name,
    from: module,
    ...(type && { type }),
    ...(as !== undefined && { as }),
  });

const value = {
  uuid: from('uuid'),
  authorize: from('../../auth/authorize.js'),
  owner: from('../../auth/owner.js'),
  verify: from('../../auth/verify.js'),
  codec: from('../../db/codec.js'),
  database: from('../../db/database.js'),
  store: from('../../db/store.js'),
  errors: from('../../http/errors.js'),
  etag: from('../../http/etag.js'),
  listing: from('../../http/listing.js'),
  methods: from('../../http/methods.js'),
  preconditions: from('../../http/preconditions.js'),
  states: from('../../http/states.js'),
  deprecation: from('../../http/deprecation.js'),
  problem: from('../../http/problem.js'),
  references: from('../../relations/references.js'),
  validation: from('../../http/validation.js'),
  types: from('../../types.js'),
  access: from('./access.js'),
  schemas: from('./schemas.js'),
};

const types = {
  fastify: from('fastify', true),
  authorize: from('../../auth/authorize.js', true),
  verify: from('../../auth/verify.js', true),
  database: from('../../db/database.js', true),
  errors: from('../../http/errors.js', true),
  listing: from('../../http/listing.js', true),
  types: from('../../types.js', true),
  model: from('./model.js', true),
  storeOf: from('./store.js', true),
  embed: from('../../relations/embed.js', true),
  events: from('../../events/log.js', true),
  feed: from('../../events/feed.js', true),
  logged: from('../../events/logged.js', true),
};

/** The runtime's names (`type: true` for those used in types only). */
export const rt = {
  FastifyInstance: types.fastify('FastifyInstance'),
  FastifyRequest: types.fastify('FastifyRequest'),
  uuidv7: value.uuid('v7', 'uuidv7'),
  Authorizer: types.authorize('Authorizer'),
  Scope: types.authorize('Scope'),
  withOwners: value.owner('withOwners'),
  giverOf: value.owner('giverOf'),
  whyRefused: value.states('whyRefused'),
  inStates: value.states('inStates'),
  gaveAway: value.owner('gaveAway'),
  ownersKept: value.owner('ownersKept'),
  Caller: types.verify('Caller'),
  codec: value.codec,
  DatabaseUnavailableError: value.database('DatabaseUnavailableError'),
  Row: types.database('Row'),
  SqlValue: types.database('SqlValue'),
  Store: value.store('Store'),
  RouteProblemConfig: types.errors('RouteProblemConfig'),
  etagOf: value.etag('etagOf'),
  isFresh: value.etag('isFresh'),
  Listing: value.listing('Listing'),
  ListSpec: types.listing('ListSpec'),
  Parent: types.listing('Parent'),
  RelatedScopes: types.listing('RelatedScopes'),
  refuseOtherMethods: value.methods('refuseOtherMethods'),
  writeIfMatch: value.preconditions('writeIfMatch'),
  expectedVersion: value.preconditions('expectedVersion'),
  parseIfMatch: value.preconditions('parseIfMatch'),
  matchesIfMatch: value.preconditions('matchesIfMatch'),
  preconditionFailed: value.preconditions('preconditionFailed'),
  notFound: value.problem('notFound'),
  conflict: value.problem('conflict'),
  NO_BODY: value.validation('NO_BODY'),
  NO_QUERY: value.validation('NO_QUERY'),
  ActionOutcome: types.types('ActionOutcome'),
  ActionResult: types.types('ActionResult'),
  JsonValue: types.types('JsonValue'),
  Page: types.types('Page'),
  Versioned: types.types('Versioned'),
  WriteOptions: types.types('WriteOptions'),
  access: value.access('access'),
  RelationTarget: types.embed('RelationTarget'),
  Embedder: types.embed('Embedder'),
  References: value.references('References'),
  announceDeprecation: value.deprecation('announceDeprecation'),
  Change: types.events('Change'),
  EventSource: types.feed('EventSource'),
  EventShape: types.logged('EventShape'),
};

/** The names of one resource's own files. */
export const local = {
  /** a type of ./model.ts */
  model: (name: string): Symbol => types.model(name),
  /** a schema of ./schemas.ts */
  schema: (name: string): Symbol => value.schemas(name),
  /** the store class, as a type */
  store: (name: string): Symbol => types.storeOf(name),
  /** the user's functions of a resource's computed fields (src/computed/<kebab>.ts) */
  computed: (kebab: string, name: string): Symbol => from(`../../computed/${kebab}.js`)(name),
};
