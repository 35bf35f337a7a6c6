import type { AccessRule, Api, IdKind, Resource } from '../model.js';
import { idSchema, type JsonSchema } from '../contract/json-schemas.js';
import { isPublic } from '../contract/access.js';
import { problemKinds } from '../contract/problems.js';
import { pageSchemas } from '../contract/listing.js';

/**
 * The parts every operation of the document shares: the parameters, headers and problem responses that say what
 * the generated server does around the resource itself (auth, rate limit, conditional requests, idempotency,
 * bodies, a database that cannot answer). Named once in `components` and referred to by operations.
 */
export const ref = (kind: 'schemas' | 'parameters' | 'headers' | 'responses', name: string): JsonSchema => ({
  $ref: `#/components/${kind}/${name}`,
});

export const security = (rule: AccessRule): JsonSchema[] => (isPublic(rule) ? [] : [{ bearer: [] }]);

export const json = (schema: JsonSchema, description: string, headers?: Record<string, JsonSchema>): JsonSchema => ({
  description,
  ...(headers !== undefined && { headers }),
  content: { 'application/json': { schema } },
});

export const problem = (description: string, headers?: Record<string, JsonSchema>): JsonSchema => ({
  description,
  ...(headers !== undefined && { headers }),
  content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } },
});

/** What a response of a guarded or rate-limited operation may also be, and what every operation may meet. */
export function commonResponses(api: Api, rule: AccessRule): Record<string, JsonSchema> {
  return {
    ...(!isPublic(rule) && { 401: ref('responses', 'Unauthorized'), 403: ref('responses', 'Forbidden') }),
    ...(api.limits.rateLimit.max > 0 && { 429: ref('responses', 'TooManyRequests') }),
    503: ref('responses', 'ServiceUnavailable'),
  };
}

/** The headers of every answer of a rate-limited operation but a 429 (which says Retry-After instead). */
export const limitHeaders = (api: Api): Record<string, JsonSchema> =>
  api.limits.rateLimit.max > 0
    ? {
        'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
        'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
        'X-RateLimit-Reset': ref('headers', 'RateLimitReset'),
      }
    : {};

/** The responses of an operation that takes a JSON body. */
export const bodyResponses = (): Record<string, JsonSchema> => ({
  413: ref('responses', 'ContentTooLarge'),
  415: ref('responses', 'UnsupportedMediaType'),
});

/** The `{id}` of a path, where its records' ids are of `kind`. */
const idParameter = (kind: IdKind): JsonSchema => ({
  name: 'id',
  in: 'path',
  required: true,
  schema: idSchema(kind),
});

/** A reference to the `{id}` parameter of `resource`'s records. */
export const idRef = (resource: Resource): JsonSchema =>
  ref('parameters', resource.id === 'integer' ? 'IntegerId' : 'UuidId');

export function components(api: Api): { parameters: JsonSchema; headers: JsonSchema; responses: JsonSchema } {
  const { limit, cursor } = pageSchemas(api);
  const has = (op: Resource['operations'][number]): boolean => api.resources.some((r) => r.operations.includes(op));
  const listed = has('list');
  const overBudget = api.resources.some((r) => r.relations.length > 0)
    ? `; or an include over its budget. ${budgetRule(api)}`
    : '';
  const query = (name: string, { description, ...schema }: JsonSchema): JsonSchema => ({
    name,
    in: 'query',
    description,
    schema,
  });
  return {
    parameters: {
      // the id of a record in a path, of each kind the resources' ids are
      ...(api.resources.some((r) => r.id !== 'integer') && { UuidId: idParameter('uuid') }),
      ...(api.resources.some((r) => r.id === 'integer') && { IntegerId: idParameter('integer') }),
      // every listing's, nested ones included
      ...(listed && {
        Limit: query('limit', limit),
        Cursor: query('cursor', cursor),
      }),
      IfMatch: {
        name: 'If-Match',
        in: 'header',
        required: false,
        description:
          'The ETag of the version this change was made from: a stale one is a 412 and nothing changes; `*` is any version',
        schema: { type: 'string' },
      },
      IfNoneMatch: {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'The ETag of the copy the client holds: 304 when it is still current',
        schema: { type: 'string' },
      },
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'A key of the client (1 to 255 characters): a repeat within 24 hours with the same body replays the first ' +
          'response; with another body it is a 422. Honoured for callers with a valid bearer token only.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    },
    headers: {
      ETag: {
        description: 'The version of the record, for If-Match and If-None-Match',
        required: true,
        schema: { type: 'string' },
      },
      Location: { description: 'The URL of the created record', required: true, schema: { type: 'string' } },
      RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
      // sent while the limit is on (RATE_LIMIT_MAX may turn it off)
      RateLimitLimit: { description: 'Requests a client may send in each window', schema: { type: 'integer' } },
      RateLimitRemaining: { description: 'Requests left in this window', schema: { type: 'integer' } },
      RateLimitReset: { description: 'Seconds until the window ends', schema: { type: 'integer' } },
    },
    responses: {
      BadRequest: problem('A body, query or header that breaks the schema (each broken field in `errors`)'),
      ...(listed && {
        BadListing: problem(
          `An unknown or repeated parameter, a limit over the maximum or a forged cursor${overBudget}`,
        ),
      }),
      // each where an operation answers it (an unused component is a warning of linters)
      ...(has('read') && {
        NotModified: {
          description: 'Not modified: the copy the client holds is current (no body)',
          headers: { ETag: ref('headers', 'ETag'), ...limitHeaders(api) },
        },
      }),
      ...(has('read') && { BadUrl: problem(`A URL that cannot be decoded${overBudget}`) }),
      ...(has('delete') && { BadIfMatch: problem('An If-Match that is not * or ETags') }),
      ...((has('create') || has('update')) && {
        Taken: problem('A unique value taken, or a reference to a missing record'),
      }),
      ...(api.resources.some((r) => r.actions.some((a) => a.method === 'get' || a.set.length === 0)) && {
        NotWritten: problem('The handler is not written yet'),
      }),
      Unauthorized: problem('No valid bearer token', {
        'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } },
      }),
      Forbidden: problem('The token does not admit this operation'),
      NotFound: problem('No such record (or one the caller may not see)'),
      PreconditionFailed: problem('The record changed since the If-Match ETag'),
      ContentTooLarge: problem(`A body over ${api.limits.bodySize} bytes`),
      UnsupportedMediaType: problem('A body that is not application/json (or merge-patch+json on PATCH)'),
      UnprocessableContent: problem('An Idempotency-Key used before with another body'),
      TooManyRequests: problem('Over the rate limit', {
        'Retry-After': ref('headers', 'RetryAfter'),
        ...limitHeaders(api),
      }),
      ServiceUnavailable: problem('The database cannot answer now, or the server is shutting down: retry', {
        'Retry-After': ref('headers', 'RetryAfter'),
      }),
    },
  };
}

export const PROBLEM_ERROR: JsonSchema = {
  type: 'object',
  description: 'One broken field of a request: a JSON Pointer to it, and what is wrong',
  properties: { path: { type: 'string' }, message: { type: 'string' } },
  required: ['path', 'message'],
};

/**
 * The `type` of a problem document: one URI per kind (runtime/src/http/problem-kinds.ts), a reference relative to the
 * document's URL unless the definition gives `problems.base`. The pages the server serves for them are not
 * operations of the document: they explain its types, they are not part of the API.
 */
export const PROBLEM_TYPE = (api: Api): JsonSchema => {
  const kinds = problemKinds(api);
  const listed = `Kinds (and their statuses): ${kinds.map((row) => `\`${row.kind}\` (${row.status})`).join(', ')}.`;
  if (!api.problemsBase.startsWith('/')) {
    return {
      type: 'string',
      description: `The kind of problem, the same for the same cause everywhere: \`${api.problemsBase}/<kind>\`. ${listed}`,
      enum: kinds.map((row) => row.type),
    };
  }
  // the origin is the one the request was sent to: the schema holds the path, at the end of the URI
  const escaped = api.problemsBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    type: 'string',
    description:
      `The kind of problem, the same for the same cause everywhere: \`<origin>${api.problemsBase}/<kind>\`, where ` +
      `the API serves a page saying what it means and what to do (the origin the request was sent to). ${listed}`,
    pattern: `${escaped}/(${kinds.map((row) => row.kind).join('|')})$`,
  };
};

export const PROBLEM = (error: JsonSchema, type: JsonSchema): JsonSchema => ({
  type: 'object',
  description: 'An RFC 9457 problem document',
  properties: {
    type,
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: {
      type: 'string',
      description:
        '`urn:request:<id>`: the id of the request, as its `X-Request-Id` header and the server’s logs say it',
    },
    errors: { type: 'array', items: error },
  },
  required: ['type', 'title', 'status', 'detail'],
});

/** Our JSON Schemas, less what only the generated server's validator knows (maxDepth). */
export function openApiSchema(schema: unknown): JsonSchema {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => (key === 'maxDepth' ? undefined : value)),
  ) as JsonSchema;
}

/** How `limits.include.maxRecords` bounds what an include embeds, in the words of a description. */
export function budgetRule(api: Api): string {
  const { include, pageSize } = api.limits;
  return (
    `A request whose include could embed more than ${include.maxRecords} records (limits.include.maxRecords) is a ` +
    '400, before any query runs. It counts, for each relation included, the records above it (the limit at the top, ' +
    `1 on a read) times 1 for a to-one relation, or ${pageSize.default} (an embedded page) for a to-many one`
  );
}

/** What the include parameter says of its budget (the 400's description says how it is counted). */
export const budgetNote = (api: Api): string =>
  `At most ${api.limits.include.maxRecords} records embedded in all (limits.include.maxRecords; more is a 400)`;
