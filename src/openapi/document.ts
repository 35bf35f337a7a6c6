import type { AccessRule, Action, Api, Resource } from '../model.js';
import {
  actionInputSchema,
  idSchema,
  inputSchema,
  patchSchema,
  recordSchema,
  type JsonSchema,
} from '../generate/json-schemas.js';
import { listQuerySchema } from '../generate/listing-view.js';
import {
  bodyResponses,
  commonResponses,
  components,
  json,
  openApiSchema,
  problem,
  PROBLEM,
  ref,
  requestSchema,
  security,
} from './parts.js';

/**
 * The OpenAPI 3.1 document of an API, built at generation time from the model: every route, parameter, body,
 * response (problem documents included), header and the bearer security of each operation. Paths are relative to
 * the one server entry, which carries the prefix. The generated server serves it at /openapi.json; `restsmith
 * openapi` prints it.
 */
export function openApiDocument(api: Api): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const route = (path: string, method: string, operation: JsonSchema): void => {
    paths[path] = { ...(paths[path] ?? {}), [method]: operation };
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
      503: ref('responses', 'ServiceUnavailable'),
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
    // relative to where the document is served: the prefix of every path below
    servers: [{ url: api.prefix === '' ? '/' : api.prefix }],
    tags: [
      { name: 'health', description: 'The server itself' },
      ...api.resources.map((r) => ({ name: r.name, description: r.description ?? `The ${r.name} collection` })),
    ],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Problem: PROBLEM,
        ...Object.fromEntries(
          api.resources.flatMap((r) => [
            [r.typeName, openApiSchema(recordSchema(api, r))],
            [`${r.typeName}Input`, requestSchema(inputSchema(api, r))],
            [`${r.typeName}Patch`, openApiSchema(patchSchema(api, r))],
          ]),
        ),
      },
      ...components(api),
    },
  };
}

type Route = (path: string, method: string, operation: JsonSchema) => void;

/** The header of every answer that carries a record. */
const etag = { ETag: ref('headers', 'ETag') };

function addResource(api: Api, r: Resource, route: Route): void {
  const record = ref('schemas', r.typeName);
  const idParameter = { name: 'id', in: 'path', required: true, schema: openApiSchema(idSchema(r.id)) };
  const has = (op: string): boolean => r.operations.includes(op as Resource['operations'][number]);
  const common = (rule: AccessRule): JsonSchema => ({ tags: [r.name], security: security(rule) });
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
        400: problem('An unknown or repeated parameter, a limit over the maximum or a forged cursor'),
        ...commonResponses(api, r.access.list),
      },
    });
  }
  if (has('create')) {
    route(path, 'post', {
      ...common(r.access.create),
      operationId: `create${singular}`,
      summary: `Create a ${singular}`,
      parameters: [ref('parameters', 'IdempotencyKey')],
      requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', `${singular}Input`) } } },
      responses: {
        201: json(record, 'Created', { Location: ref('headers', 'Location'), ...etag }),
        400: ref('responses', 'BadRequest'),
        409: problem('A unique value taken, or a reference to a missing record'),
        422: ref('responses', 'UnprocessableContent'),
        ...bodyResponses(),
        ...commonResponses(api, r.access.create),
      },
    });
  }
  if (has('read')) {
    route(item, 'get', {
      ...common(r.access.read),
      operationId: `get${singular}`,
      summary: `One ${singular}`,
      parameters: [idParameter, ref('parameters', 'IfNoneMatch')],
      responses: {
        200: json(record, 'The record', etag),
        304: { description: 'Not modified: the copy the client holds is current', headers: etag },
        400: problem('A URL that cannot be decoded'),
        404: ref('responses', 'NotFound'),
        ...commonResponses(api, r.access.read),
      },
    });
  }
  if (has('update')) {
    const change = (method: 'put' | 'patch', schema: string, summary: string, media: string[]): void =>
      route(item, method, {
        ...common(r.access.update),
        operationId: `${method === 'put' ? 'replace' : 'patch'}${singular}`,
        summary,
        parameters: [idParameter, ref('parameters', 'IfMatch')],
        requestBody: {
          required: true,
          content: Object.fromEntries(media.map((m) => [m, { schema: ref('schemas', schema) }])),
        },
        responses: {
          200: json(record, 'The changed record', etag),
          400: ref('responses', 'BadRequest'),
          404: ref('responses', 'NotFound'),
          409: problem('A unique value taken, or a reference to a missing record'),
          412: ref('responses', 'PreconditionFailed'),
          ...bodyResponses(),
          ...commonResponses(api, r.access.update),
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
      parameters: [idParameter, ref('parameters', 'IfMatch')],
      responses: {
        204: { description: 'Deleted' },
        400: problem('An If-Match that is not * or ETags'),
        404: ref('responses', 'NotFound'),
        409: problem('Other records still refer to it'),
        412: ref('responses', 'PreconditionFailed'),
        ...commonResponses(api, r.access.delete),
      },
    });
  }
  for (const action of r.actions) addAction(api, r, action, route, record, idParameter);
}

function addAction(api: Api, r: Resource, action: Action, route: Route, record: JsonSchema, id: JsonSchema): void {
  const item = action.on === 'item';
  const body = requestSchema(actionInputSchema(api, action));
  route(`/${r.name}${item ? '/{id}' : ''}/${action.name}`, 'post', {
    tags: [r.name],
    security: security(action.access),
    operationId: `${action.names.camel}${item ? r.typeName : r.names.pascal}`,
    summary: action.description ?? `The ${action.name} action`,
    parameters: [...(item ? [id, ref('parameters', 'IfMatch')] : []), ref('parameters', 'IdempotencyKey')],
    ...(action.input.length > 0 && {
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
    }),
    responses: {
      200:
        action.set.length > 0
          ? json(record, 'The changed record', etag)
          : { description: 'What the handler answers', content: { 'application/json': { schema: {} } } },
      400: ref('responses', 'BadRequest'),
      ...(item && { 404: ref('responses', 'NotFound'), 412: ref('responses', 'PreconditionFailed') }),
      ...(action.when.length > 0 && { 409: problem('The record is not in a state this action applies to') }),
      422: ref('responses', 'UnprocessableContent'),
      ...(action.input.length > 0 && bodyResponses()),
      ...(action.set.length === 0 && { 501: problem('The handler is not written yet') }),
      ...commonResponses(api, action.access),
    },
  });
}
