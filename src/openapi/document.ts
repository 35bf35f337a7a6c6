import type { Api, Resource } from '../model.js';
import {
  actionInputSchema,
  inputSchema,
  inputUnderSchema,
  patchSchema,
  recordSchema,
  type JsonSchema,
} from '../contract/json-schemas.js';
import { addNested } from './nested-operations.js';
import { addResource } from './operations.js';
import { addEvents, eventSchemas } from './events.js';
import { enumFilterSchemas, listParameterComponents, sharedFilterSchemas } from './filters.js';
import { createdUnder, includePaths } from '../contract/relations.js';
import { canonical, digestOfText, neighbourhood, neighbourhoodKey } from '../contract/neighbourhood.js';
import { LastRun, once } from '../memo.js';
import { components, json, openApiSchema, PROBLEM, PROBLEM_ERROR, PROBLEM_TYPE, ref } from './parts.js';
import { announced, withDeprecatedFields } from './deprecation.js';
import { enumSchema, requestSchema, SchemaNames, withEnumRefs } from './schemas.js';

/** Where a generated server listens when its HOST and PORT are left as they are. */
export const DEFAULT_ORIGIN = 'http://127.0.0.1:3000';

/**
 * The OpenAPI 3.1 document of an API, built at generation time from the model: every route, parameter, body,
 * response (problem documents included), header and the bearer security of each operation, every schema named once
 * in `components` and referred to. Paths are relative to the one server, which carries the prefix after an
 * `{origin}` variable; the generated server serves the document at /openapi.json with its own origin there instead.
 * `restsmith openapi` prints it.
 */
export function openApiDocument(api: Api): JsonSchema {
  return joinedDocument(splitDocument(api));
}

/** The key that stands in a frame (`SplitDocument`) where the resources' entries go: no path nor schema name. */
export const PARTS_HERE = '<resources>';

/**
 * The document in parts: the frame, and each resource's parts. Its text is printed part by part (the
 * project's src/openapi.json, pipeline/json-chunks.ts), so that a regeneration prints again only the parts of the
 * resources an edit changed: the document of 100 resources is 12 MB.
 */
export interface SplitDocument {
  /**
   * the document but the resources' entries: an entry PARTS_HERE stands for them in `paths`, `components.schemas`
   * and `components.parameters`
   */
  frame: JsonSchema;
  /** each resource's parts, in order: a key of all they are made from, and the parts, made when asked */
  resources: readonly { key: string; parts: () => ResourceParts }[];
}

export function splitDocument(api: Api): SplitDocument {
  const names = new SchemaNames(api);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const route = (path: string, method: string, operation: JsonSchema): void => {
    paths[path] = { ...(paths[path] ?? {}), [method]: announced(api, path, operation) };
  };
  route('/livez', 'get', {
    operationId: 'liveness',
    summary: 'Whether the process serves requests (the database is not asked): a liveness probe',
    tags: ['health'],
    security: [],
    responses: { 200: json(names.ref('health'), 'The process serves requests') },
  });
  route('/readyz', 'get', {
    operationId: 'readiness',
    summary: 'Whether the server should be sent requests: its database answers and it is not shutting down',
    tags: ['health'],
    security: [],
    responses: {
      200: json(names.ref('health'), 'The server is ready'),
      503: ref('responses', 'ServiceUnavailable'),
    },
  });
  route('/healthz', 'get', {
    operationId: 'health',
    summary: 'Whether the server and its database answer',
    tags: ['health'],
    security: [],
    responses: {
      200: json(names.ref('health'), 'The server is up'),
      503: ref('responses', 'ServiceUnavailable'),
    },
  });
  // every resource's paths start with its name, which no server or event route has (semantic-checks.ts)
  paths[PARTS_HERE] = {};
  addEvents(api, route, names);
  const shared = components(api);
  const frame = {
    openapi: '3.1.0',
    info: {
      title: api.title ?? api.name,
      version: api.version,
      ...(api.description !== undefined && { description: api.description }),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [
      {
        url: `{origin}${api.prefix}`,
        description: 'The server; as served at /openapi.json, the one it is served from',
        variables: {
          origin: { default: DEFAULT_ORIGIN, description: 'Scheme, host and port of the server' },
        },
      },
    ],
    tags: [
      { name: 'health', description: 'The server itself' },
      ...api.resources.map((r) => ({ name: r.name, description: r.description ?? `The ${r.name} collection` })),
      ...(api.events === undefined ? [] : [{ name: 'events', description: 'The change feed: every write, in order' }]),
      ...(api.events?.webhooks === true
        ? [{ name: 'webhooks', description: 'Subscriptions that POST each event to a URL, signed' }]
        : []),
    ],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: frameSchemas(api, names),
      ...shared,
      // the resources' listing parameters (filters.ts) after the shared ones
      parameters: { ...shared.parameters, [PARTS_HERE]: {} },
    },
  };
  return { frame, resources: partsOf(api, names) };
}

/** The document a split one is: each PARTS_HERE entry of the frame replaced by the resources' entries, in order. */
export function joinedDocument({ frame, resources }: SplitDocument): JsonSchema {
  const parts = resources.map((r) => r.parts());
  const components = frame.components as Record<'schemas' | 'parameters', Record<string, JsonSchema>>;
  return {
    ...frame,
    paths: spliced(frame.paths as Record<string, JsonSchema>, parts.flatMap(pathEntries)),
    components: {
      ...components,
      schemas: spliced(
        components.schemas,
        parts.flatMap((p) => p.schemas),
      ),
      parameters: spliced(
        components.parameters,
        parts.flatMap((p) => p.parameters),
      ),
    },
  };
}

/** `record` with its PARTS_HERE entry replaced by `entries`. */
function spliced(
  record: Record<string, JsonSchema>,
  entries: readonly (readonly [string, JsonSchema])[],
): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(record).flatMap(([name, value]) => (name === PARTS_HERE ? entries : [[name, value] as const])),
  );
}

/** A resource's operations as entries of `paths`: one a path, its methods in the order they were added. */
export function pathEntries(parts: ResourceParts): [string, Record<string, JsonSchema>][] {
  const paths = new Map<string, Record<string, JsonSchema>>();
  for (const [path, method, operation] of parts.routes) paths.set(path, { ...paths.get(path), [method]: operation });
  return [...paths];
}

/** The named schemas but the resources': the problem and the health answer, then theirs (PARTS_HERE), then the events'. */
function frameSchemas(api: Api, names: SchemaNames): Record<string, JsonSchema> {
  return Object.fromEntries([
    [names.of('problem'), PROBLEM(names.ref('problemError'), names.ref('problemType'))],
    [names.of('problemError'), PROBLEM_ERROR],
    [names.of('problemType'), PROBLEM_TYPE(api)],
    [
      names.of('health'),
      { type: 'object', properties: { status: { type: 'string', const: 'ok' } }, required: ['status'] },
    ],
    ...sharedFilterSchemas(api, names),
    [PARTS_HERE, {}],
    ...eventSchemas(api, names),
  ]);
}

/** What one resource adds to the document: its operations, by path and method, and its named schemas. */
export interface ResourceParts {
  routes: readonly (readonly [path: string, method: string, operation: JsonSchema])[];
  schemas: readonly (readonly [name: string, schema: JsonSchema])[];
  /** its listing's parameters, named (filters.ts) */
  parameters: readonly (readonly [name: string, parameter: JsonSchema])[];
}

/**
 * Each resource's key and parts: the parts are made from its neighbourhood (contract/neighbourhood.ts) when asked
 * (a regeneration asks for those of the resources an edit changed: json-chunks.ts), and remembered until the next
 * run's parts of the same resource: under `generate --watch`, the parts of the resources a save did not change are
 * the ones made last time, found by the key of all they are made from (the neighbourhood, settings included, and the
 * names of every schema).
 */
function partsOf(api: Api, names: SchemaNames): SplitDocument['resources'] {
  const namesKey = digestOfText(canonical(names.all()));
  const resources = api.resources.map((r) => {
    const key = `${neighbourhoodKey(api, r)}\n${namesKey}`;
    return {
      key,
      // made once, for its paths and its schemas
      parts: once(() =>
        lastParts.of(
          r.name,
          () => key,
          () => resourceParts(neighbourhood(api, r), r, names),
        ),
      ),
    };
  });
  lastParts.keep(new Set(api.resources.map((r) => r.name)));
  return resources;
}

const lastParts = new LastRun<ResourceParts>();

/** A resource's operations (collection, items, actions, nested routes) and its named schemas. */
export function resourceParts(api: Api, r: Resource, names: SchemaNames): ResourceParts {
  const routes: [string, string, JsonSchema][] = [];
  const route = (path: string, method: string, operation: JsonSchema): void => {
    routes.push([path, method, announced(api, path, operation)]);
  };
  addResource(api, r, route, names);
  addNested(api, r, route, names);
  const entries: [string, JsonSchema][] = [];
  const enums = names.enums(r.name, r.fields);
  const named = (schema: JsonSchema): JsonSchema => withDeprecatedFields(withEnumRefs(schema, enums), r.fields);
  entries.push(
    [names.of(`record:${r.name}`), withEmbedded(named(openApiSchema(recordSchema(api, r, false))), r, names)],
    [names.of(`input:${r.name}`), named(requestSchema(inputSchema(api, r), r.fields))],
    [names.of(`patch:${r.name}`), named(requestSchema(patchSchema(api, r), r.fields))],
    ...createdUnder(api, r).map((relation): [string, JsonSchema] => [
      names.of(`inputUnder:${r.name}.${relation.name}`),
      named(requestSchema(inputUnderSchema(api, r, relation.field), r.fields)),
    ]),
    [
      names.of(`page:${r.name}`),
      {
        type: 'object',
        description: `A page of ${r.name}: pass nextCursor as the cursor of the next request; null on the last page`,
        properties: {
          items: { type: 'array', items: names.ref(`record:${r.name}`) },
          nextCursor: { type: ['string', 'null'] },
        },
        required: ['items', 'nextCursor'],
      },
    ],
    ...includeComponent(api, r, names),
    ...r.fields.flatMap((f): [string, JsonSchema][] =>
      f.type === 'enum' ? [[names.of(`enum:${r.name}.${f.name}`), enumSchema(f)]] : [],
    ),
    ...enumFilterSchemas(api, r, names),
  );
  // a read-only action's input is query parameters, whose schemas are written in place
  for (const a of r.actions.filter((action) => action.method === 'post')) {
    const key = `${r.name}.${a.name}`;
    if (a.input.length > 0) {
      const body = requestSchema(actionInputSchema(api, a), a.input);
      entries.push([names.of(`action:${key}`), withEnumRefs(body, names.enums(key, a.input))]);
    }
    for (const f of a.input) if (f.type === 'enum') entries.push([names.of(`enum:${key}.${f.name}`), enumSchema(f)]);
  }
  const parameters = r.operations.includes('list') ? listParameterComponents(api, r, names) : [];
  return { routes, schemas: entries, parameters };
}

/** The relation paths `include` takes on a resource's reads and listings, as a named enum. */
function includeComponent(api: Api, r: Resource, names: SchemaNames): [string, JsonSchema][] {
  const paths = includePaths(api, r);
  if (paths.length === 0) return [];
  return [
    [names.of(`include:${r.name}`), { type: 'string', enum: paths, description: `A relation of ${r.name} to embed` }],
  ];
}

/** A record's relations, present only when `include` names them: the target's record or null, or a page of them. */
function withEmbedded(schema: JsonSchema, r: Resource, names: SchemaNames): JsonSchema {
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  for (const relation of r.relations) {
    const description = (properties[relation.name]?.description as string | undefined) ?? '';
    properties[relation.name] =
      relation.kind === 'one'
        ? { description, oneOf: [names.ref(`record:${relation.target}`), { type: 'null' }] }
        : { description, ...names.ref(`page:${relation.target}`) };
  }
  return { ...schema, properties };
}
