import type { AccessRule, Action, Api, Resource, When } from '../model.js';
import { actionHides, readCovers, statesOf } from '../contract/access.js';
import { inputFieldSchema, type JsonSchema } from '../contract/json-schemas.js';
import { writableFields } from '../schema/columns.js';
import {
  bodyResponses,
  commonResponses,
  idRef,
  json,
  limitHeaders,
  openApiSchema,
  problem,
  ref,
  security,
} from './parts.js';
import { actionOperation, exampleBody, examplePatch, type SchemaNames } from './schemas.js';
import { listParameters, readIncludeParameter } from './filters.js';

const TAKEN_SAID = 'A unique value taken, or a reference to a missing record';

/** The 409 of a create or a change (components.responses.Taken). */
export const TAKEN = ref('responses', 'Taken');

/** The 409 of a change, with the states its rule allows it in (`update: { access, when }`). */
function inStates(when: When, description: string): JsonSchema {
  if (when.length === 0) return description === TAKEN_SAID ? TAKEN : problem(description);
  return problem(`${description}; or the record is not in a state that allows it (only while ${statesOf(when)})`);
}

/** What a listing's description says of its filters and pages. */
export const LISTING =
  'Filters: one parameter a field, in the style deepObject: `field[op]=value` for the operators eq, ne, gt, gte, ' +
  'lt, lte, in (a list: comma-separated, or the parameter repeated) and contains; `field=value` is the same as ' +
  '`field[eq]=value`. Through a relation, `author.country[eq]=FR`: the records whose author is from FR, or for a ' +
  'to-many relation whose related records include one that matches, counting only related records the caller may ' +
  'read. Pages are keyset-based: pass the `nextCursor` of a page as `cursor`, with the same sort and filters, for ' +
  'the next one.';

export type Route = (path: string, method: string, operation: JsonSchema) => void;

/** The operations of one resource: the five of its collection and items that are switched on, and its actions. */
export function addResource(api: Api, r: Resource, route: Route, names: SchemaNames): void {
  const record = names.ref(`record:${r.name}`);
  const idParameter = idRef(r);
  const has = (op: string): boolean => r.operations.includes(op as Resource['operations'][number]);
  const common = (rule: AccessRule): JsonSchema => ({ tags: [r.name], security: security(rule) });
  const path = `/${r.name}`;
  const item = `${path}/{id}`;
  const singular = r.typeName;
  const limited = limitHeaders(api);
  const withRecord = { ETag: ref('headers', 'ETag'), ...limited };
  // POST and PUT take the same body: one example serves both
  const input = exampleBody(api, writableFields(r), r.owners[0]);
  const body = (schema: string, example: JsonSchema, media = ['application/json']): JsonSchema => ({
    required: true,
    content: Object.fromEntries(media.map((m) => [m, { schema: names.ref(`${schema}:${r.name}`), example }])),
  });

  if (has('list')) {
    route(path, 'get', {
      ...common(r.access.list),
      operationId: `list${r.names.pascal}`,
      summary: `A page of ${r.name}`,
      description: LISTING,
      parameters: listParameters(api, r, names),
      responses: {
        200: json(names.ref(`page:${r.name}`), 'A page', limited),
        400: ref('responses', 'BadListing'),
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
      requestBody: body('input', input),
      responses: {
        201: json(record, 'Created', { Location: ref('headers', 'Location'), ...withRecord }),
        400: ref('responses', 'BadRequest'),
        409: TAKEN,
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
      parameters: [idParameter, ...readIncludeParameter(api, r, names), ref('parameters', 'IfNoneMatch')],
      responses: {
        200: json(record, 'The record (without an ETag when `include` embeds relations)', withRecord),
        304: ref('responses', 'NotModified'),
        400: ref('responses', 'BadUrl'),
        404: ref('responses', 'NotFound'),
        ...commonResponses(api, r.access.read),
      },
    });
  }
  if (has('update')) {
    const change = (method: 'put' | 'patch', requestBody: JsonSchema, summary: string): void =>
      route(item, method, {
        ...common(r.access.update),
        operationId: `${method === 'put' ? 'replace' : 'patch'}${singular}`,
        summary,
        parameters: [idParameter, ref('parameters', 'IfMatch')],
        requestBody,
        responses: {
          200: json(record, 'The changed record', withRecord),
          ...(!readCovers(r.access.read, r.access.update, api.auth.adminRole) && { 204: unshown(withRecord) }),
          400: ref('responses', 'BadRequest'),
          404: ref('responses', 'NotFound'),
          409: inStates(r.writableWhen.update, TAKEN_SAID),
          412: ref('responses', 'PreconditionFailed'),
          ...bodyResponses(),
          ...commonResponses(api, r.access.update),
        },
      });
    change('put', body('input', input), `Replace a ${singular}`);
    change(
      'patch',
      body('patch', examplePatch(r), ['application/merge-patch+json', 'application/json']),
      `Change a ${singular} with a JSON Merge Patch`,
    );
  }
  if (has('delete')) {
    route(item, 'delete', {
      ...common(r.access.delete),
      operationId: `delete${singular}`,
      summary: `Delete a ${singular}`,
      parameters: [idParameter, ref('parameters', 'IfMatch')],
      responses: {
        204: { description: 'Deleted', ...(Object.keys(limited).length > 0 && { headers: limited }) },
        400: ref('responses', 'BadIfMatch'),
        404: ref('responses', 'NotFound'),
        409: inStates(r.writableWhen.delete, 'Other records still refer to it'),
        412: ref('responses', 'PreconditionFailed'),
        ...commonResponses(api, r.access.delete),
      },
    });
  }
  for (const action of r.actions) addAction(api, r, action, route, names, idParameter);
}

/** The 204 of a write whose rule admits callers the read rule does not (see readCovers). */
const unshown = (headers: JsonSchema): JsonSchema => ({
  description: 'Changed; the caller may not read the record (by its read rule), so it is not shown',
  headers,
});

function addAction(api: Api, r: Resource, action: Action, route: Route, names: SchemaNames, id: JsonSchema): void {
  const item = action.on === 'item';
  const limited = limitHeaders(api);
  const path = `/${r.name}${item ? '/{id}' : ''}/${action.name}`;
  if (action.method === 'get') {
    route(path, 'get', {
      tags: [r.name],
      security: security(action.access),
      operationId: actionOperation(r, action),
      summary: action.description ?? `The ${action.name} action (read-only)`,
      // the input, as query parameters
      parameters: [
        ...(item ? [id] : []),
        ...action.input.map((f) => ({
          name: f.name,
          in: 'query',
          required: f.required,
          schema: openApiSchema(inputFieldSchema(api, f)),
          ...(f.description !== undefined && { description: f.description }),
        })),
      ],
      responses: {
        200: json({}, 'What the handler answers', limited),
        400: ref('responses', 'BadRequest'),
        ...(item && { 404: ref('responses', 'NotFound') }),
        501: ref('responses', 'NotWritten'),
        ...commonResponses(api, action.access),
      },
    });
    return;
  }
  route(path, 'post', {
    tags: [r.name],
    security: security(action.access),
    operationId: actionOperation(r, action),
    summary: action.description ?? `The ${action.name} action`,
    parameters: [...(item ? [id, ref('parameters', 'IfMatch')] : []), ref('parameters', 'IdempotencyKey')],
    ...(action.input.length > 0 && {
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: names.ref(`action:${r.name}.${action.name}`),
            example: exampleBody(api, action.input),
          },
        },
      },
    }),
    responses: {
      200:
        action.set.length > 0
          ? json(names.ref(`record:${r.name}`), 'The changed record', { ETag: ref('headers', 'ETag'), ...limited })
          : json({}, 'What the handler answers', limited),
      ...(action.set.length > 0 &&
        item &&
        actionHides(r, action, api.auth.adminRole) && {
          204: unshown({ ETag: ref('headers', 'ETag'), ...limited }),
        }),
      400: ref('responses', 'BadRequest'),
      ...(item && { 404: ref('responses', 'NotFound'), 412: ref('responses', 'PreconditionFailed') }),
      ...(action.when.length > 0 && { 409: problem('The record is not in a state this action applies to') }),
      422: ref('responses', 'UnprocessableContent'),
      ...(action.input.length > 0 && bodyResponses()),
      ...(action.set.length === 0 && { 501: ref('responses', 'NotWritten') }),
      ...commonResponses(api, action.access),
    },
  });
}
