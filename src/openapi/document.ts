import type { AccessRule, Action, Api, Resource } from '../model.js';
import {
  actionInputSchema,
  idSchema,
  inputSchema,
  patchSchema,
  recordSchema,
  type JsonSchema,
} from '../generate/json-schemas.js';
import { isPublic } from '../generate/access-view.js';
import { listQuerySchema } from '../generate/listing-view.js';

/**
 * The OpenAPI 3.1 document of an API, built at generation time from the model: every route, parameter, body,
 * response (problem documents included) and the bearer security of each operation. The generated server serves
 * it at /openapi.json; `restsmith openapi` prints it.
 */
export function openApiDocument(api: Api): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const route = (path: string, method: string, operation: JsonSchema): void => {
    const key = `${api.prefix}${path}`;
    paths[key] = { ...(paths[key] ?? {}), [method]: operation };
  };
  route('/healthz', 'get', {
    operationId: 'health',
    summary: 'Whether the server and its database answer',
    tags: ['health'],
    security: [],
    responses: {
      200: json(
        { type: 'object', properties: { status: { type: 'string', const: 'ok' } }, required: ['status'] },
        'The server is up',
      ),
      500: problem('The database does not answer'),
    },
  });
  for (const resource of api.resources) addResource(api, resource, route);
  return {
    openapi: '3.1.0',
    info: {
      title: api.title ?? api.name,
      version: api.version,
      ...(api.description !== undefined && { description: api.description }),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [
      { name: 'health' },
      ...api.resources.map((r) => ({
        name: r.name,
        ...(r.description !== undefined && { description: r.description }),
      })),
    ],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Problem: PROBLEM,
        ...Object.fromEntries(
          api.resources.flatMap((r) => [
            [r.typeName, openApiSchema(recordSchema(api, r))],
            [`${r.typeName}Input`, openApiSchema(inputSchema(api, r))],
            [`${r.typeName}Patch`, openApiSchema(patchSchema(api, r))],
          ]),
        ),
      },
    },
  };
}

type Route = (path: string, method: string, operation: JsonSchema) => void;

function addResource(api: Api, r: Resource, route: Route): void {
  const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
  const record = ref(r.typeName);
  const idParameter = { name: 'id', in: 'path', required: true, schema: openApiSchema(idSchema(r.id)) };
  const ifMatch = {
    name: 'If-Match',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: 'the ETag of the version this change was made from',
  };
  const has = (op: string): boolean => r.operations.includes(op as Resource['operations'][number]);
  const common = (rule: AccessRule): JsonSchema => ({ tags: [r.name], security: security(rule) });
  const guarded = (rule: AccessRule): Record<number, JsonSchema> =>
    isPublic(rule)
      ? {}
      : { 401: problem('No valid bearer token'), 403: problem('The token does not admit this operation') };
  const path = `/${r.name}`;
  const item = `${path}/{id}`;
  const singular = r.typeName;

  if (has('list')) {
    const query = listQuerySchema(api, r) as { properties: Record<string, JsonSchema> };
    route(path, 'get', {
      ...common(r.access.list),
      operationId: `list${r.names.pascal}`,
      summary: `A page of ${r.name}`,
      parameters: Object.entries(query.properties).map(([name, schema]) => ({
        name,
        in: 'query',
        required: false,
        schema,
      })),
      responses: {
        200: json(
          {
            type: 'object',
            properties: { items: { type: 'array', items: record }, nextCursor: { type: ['string', 'null'] } },
            required: ['items', 'nextCursor'],
          },
          'A page',
        ),
        400: problem('An unknown parameter, a limit over the maximum or a forged cursor'),
        ...guarded(r.access.list),
      },
    });
  }
  if (has('create')) {
    route(path, 'post', {
      ...common(r.access.create),
      operationId: `create${singular}`,
      summary: `Create a ${singular}`,
      requestBody: { required: true, content: { 'application/json': { schema: ref(`${singular}Input`) } } },
      responses: {
        201: {
          ...json(record, 'Created'),
          headers: { Location: { schema: { type: 'string' } }, ETag: { schema: { type: 'string' } } },
        },
        400: problem('A body that breaks the schema'),
        409: problem('A unique value taken, or a reference to a missing record'),
        ...guarded(r.access.create),
      },
    });
  }
  if (has('read')) {
    route(item, 'get', {
      ...common(r.access.read),
      operationId: `get${singular}`,
      summary: `One ${singular}`,
      parameters: [idParameter, { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
      responses: {
        200: { ...json(record, 'The record'), headers: { ETag: { schema: { type: 'string' } } } },
        304: { description: 'Not modified' },
        404: problem('No such record'),
        ...guarded(r.access.read),
      },
    });
  }
  if (has('update')) {
    const change = (method: 'put' | 'patch', schema: string, summary: string, media: string[]): void =>
      route(item, method, {
        ...common(r.access.update),
        operationId: `${method === 'put' ? 'replace' : 'patch'}${singular}`,
        summary,
        parameters: [idParameter, ifMatch],
        requestBody: { required: true, content: Object.fromEntries(media.map((m) => [m, { schema: ref(schema) }])) },
        responses: {
          200: json(record, 'The changed record'),
          400: problem('A body that breaks the schema'),
          404: problem('No such record'),
          409: problem('A unique value taken, or a reference to a missing record'),
          412: problem('The record changed since the If-Match ETag'),
          ...guarded(r.access.update),
        },
      });
    change('put', `${singular}Input`, `Replace a ${singular}`, ['application/json']);
    change('patch', `${singular}Patch`, `Change a ${singular} with a JSON Merge Patch`, [
      'application/json',
      'application/merge-patch+json',
    ]);
  }
  if (has('delete')) {
    route(item, 'delete', {
      ...common(r.access.delete),
      operationId: `delete${singular}`,
      summary: `Delete a ${singular}`,
      parameters: [idParameter, ifMatch],
      responses: {
        204: { description: 'Deleted' },
        404: problem('No such record'),
        409: problem('Other records still refer to it'),
        412: problem('The record changed since the If-Match ETag'),
        ...guarded(r.access.delete),
      },
    });
  }
  for (const action of r.actions) addAction(api, r, action, route, record, idParameter, guarded);
}

function addAction(
  api: Api,
  r: Resource,
  action: Action,
  route: Route,
  record: JsonSchema,
  idParameter: JsonSchema,
  guarded: (rule: AccessRule) => Record<number, JsonSchema>,
): void {
  const item = action.on === 'item';
  const body = openApiSchema(actionInputSchema(api, action));
  route(`/${r.name}${item ? '/{id}' : ''}/${action.name}`, 'post', {
    tags: [r.name],
    security: security(action.access),
    operationId: `${action.names.camel}${item ? r.typeName : r.names.pascal}`,
    summary: action.description ?? `The ${action.name} action`,
    ...(item && { parameters: [idParameter] }),
    ...(action.input.length > 0 && {
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
    }),
    responses: {
      200:
        action.set.length > 0
          ? json(record, 'The changed record')
          : { description: 'What the handler answers', content: { 'application/json': { schema: {} } } },
      ...(action.input.length > 0 && { 400: problem('A body that breaks the schema') }),
      ...(item && { 404: problem('No such record') }),
      ...(action.when.length > 0 && { 409: problem('The record is not in a state this action applies to') }),
      ...(action.set.length === 0 && { 501: problem('The handler is not written yet') }),
      ...guarded(action.access),
    },
  });
}

const security = (rule: AccessRule): JsonSchema[] => (isPublic(rule) ? [] : [{ bearer: [] }]);
const json = (schema: JsonSchema, description: string): JsonSchema => ({
  description,
  content: { 'application/json': { schema } },
});
const problem = (description: string): JsonSchema => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** Our JSON Schemas, less what only the generated server's validator knows (maxDepth). */
function openApiSchema(schema: unknown): JsonSchema {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => (key === 'maxDepth' ? undefined : value)),
  ) as JsonSchema;
}

const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'An RFC 9457 problem document',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, message: { type: 'string' } },
        required: ['path', 'message'],
      },
    },
  },
  required: ['type', 'title', 'status', 'detail'],
};
