import type { AccessRule, Action, Api, Resource, When } from '../model.js';
import { oncePerPair } from '../memo.js';
import { actionHides, readCovers, statesOf } from '../contract/access.js';
import { idSchema, inputFieldSchema, type JsonSchema } from '../contract/json-schemas.js';
import { writableFields } from '../schema/columns.js';
import {
  includeSchema,
  listFilters,
  MAX_IN,
  pagingSchemas,
  relationFilters,
  type ListFilter,
} from '../contract/listing.js';
import { targetOf } from '../contract/relations.js';
import { bodyResponses, commonResponses, json, limitHeaders, openApiSchema, problem, ref, security } from './parts.js';
import { actionOperation, enumRef, exampleBody, examplePatch, type SchemaNames } from './schemas.js';

/** The 409 of a create or a change. */
export const TAKEN = problem('A unique value taken, or a reference to a missing record');

/** The 409 of a change, with the states its rule allows it in (`update: { access, when }`). */
function inStates(when: When, description: string): JsonSchema {
  if (when.length === 0) return problem(description);
  return problem(`${description}; or the record is not in a state that allows it (only while ${statesOf(when)})`);
}

export type Route = (path: string, method: string, operation: JsonSchema) => void;

/** `include`, where the resource has relations: the paths it takes, comma-separated. */
export function includeParameter(api: Api, r: Resource, names: SchemaNames): JsonSchema[] {
  const include = includeSchema(api, r).include;
  if (include === undefined) return [];
  const { description, items: _items, ...schema } = include;
  return [
    {
      name: 'include',
      in: 'query',
      required: false,
      style: 'form',
      explode: false,
      description: `${String(description)}. ${budgetRule(api)}`,
      schema: { ...schema, items: names.ref(`include:${r.name}`) },
    },
  ];
}

/** How `limits.include.maxRecords` bounds what an include embeds, in the words of a description. */
function budgetRule(api: Api): string {
  const { include, pageSize } = api.limits;
  return (
    `A request whose include could embed more than ${include.maxRecords} records (limits.include.maxRecords) is a ` +
    '400, before any query runs. It counts, for each relation included, the records above it (the limit at the top, ' +
    `1 on a read) times 1 for a to-one relation, or ${pageSize.default} (an embedded page) for a to-many one`
  );
}

/** The 400 of a listing of `r` (its own, or a nested one): `include`'s budget where `r` has relations. */
export function listBadRequest(api: Api, r: Resource): JsonSchema {
  const paging = 'An unknown or repeated parameter, a limit over the maximum or a forged cursor';
  return problem(r.relations.length === 0 ? paging : `${paging}; or an include over its budget. ${budgetRule(api)}`);
}

/** The operations of one resource: the five of its collection and items that are switched on, and its actions. */
export function addResource(api: Api, r: Resource, route: Route, names: SchemaNames): void {
  const record = names.ref(`record:${r.name}`);
  const idParameter = { name: 'id', in: 'path', required: true, schema: openApiSchema(idSchema(r.id)) };
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
      description:
        'Filters: `field=value` for equality, `field[op]=value` for the operators ne, gt, gte, lt, lte, in ' +
        '(a list: comma-separated, or the parameter repeated) and contains. Pages are keyset-based: pass the ' +
        '`nextCursor` of a page as `cursor`, with the same sort and filters, for the next one.',
      parameters: listParameters(api, r, names),
      responses: {
        200: json(names.ref(`page:${r.name}`), 'A page', limited),
        400: listBadRequest(api, r),
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
      parameters: [idParameter, ...includeParameter(api, r, names), ref('parameters', 'IfNoneMatch')],
      responses: {
        200: json(record, 'The record (without an ETag when `include` embeds relations)', withRecord),
        304: { description: 'Not modified: the copy the client holds is current (no body)', headers: withRecord },
        400: problem(
          r.relations.length === 0
            ? 'A URL that cannot be decoded'
            : `A URL that cannot be decoded, or an unknown include or one over its budget. ${budgetRule(api)}`,
        ),
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
          409: inStates(r.writableWhen.update, 'A unique value taken, or a reference to a missing record'),
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
        400: problem('An If-Match that is not * or ETags'),
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
        501: problem('The handler is not written yet'),
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
      ...(action.set.length === 0 && { 501: problem('The handler is not written yet') }),
      ...commonResponses(api, action.access),
    },
  });
}

/** What a filter asks of a field, in words: `views[gte]` is "records whose views is at least this". */
const OPERATORS: Record<string, string> = {
  eq: 'is this value',
  ne: 'is not this value',
  gt: 'is greater than this',
  gte: 'is at least this',
  lt: 'is less than this',
  lte: 'is at most this',
  in: `is one of these (at most ${MAX_IN}: comma-separated, or the parameter repeated)`,
  contains: 'contains this text (ASCII letters in either case)',
};

/**
 * The query parameters of a listing, in the order a person looks for them: paging and sort, then one equality
 * filter per field, then each field's operators together. An `in` filter is an array sent comma-separated
 * (`style: form, explode: false`); the server takes the parameter repeated too, as some clients send arrays.
 */
export const listParameters = (api: Api, r: Resource, names: SchemaNames): readonly JsonSchema[] =>
  listings(names, r, api);

/**
 * Each listing's parameters, made once a document: a listing's are also those of every nested route to its records
 * (`GET /authors/{id}/books` takes what `GET /books` takes), and those are many in a large definition. The api is
 * that of the first to ask, the neighbourhood of `r` or of a resource one step from it (a nested listing of `r`):
 * both hold `r`'s relation targets, all that its filters read (contract/neighbourhood.ts).
 */
const listings = oncePerPair((names: SchemaNames, r: Resource, api: Api): readonly JsonSchema[] =>
  listingParameters(api, r, names),
);

function listingParameters(api: Api, r: Resource, names: SchemaNames): JsonSchema[] {
  const enums = names.enums(r.name, r.fields);
  const value = (f: ListFilter): JsonSchema => {
    const enumName = enums[f.field];
    return enumName === undefined || f.op === 'contains' ? f.value : enumRef(f.value, enumName);
  };
  const filter = (f: ListFilter): JsonSchema => ({
    name: f.name,
    in: 'query',
    required: false,
    description: `Records whose ${f.field} ${OPERATORS[f.op] ?? f.op}`,
    ...(f.op === 'in'
      ? { style: 'form', explode: false, schema: { type: 'array', items: value(f), minItems: 1, maxItems: MAX_IN } }
      : { schema: value(f) }),
  });
  const filters = listFilters(api, r);
  // through relations: `author.country`, `tags.name` (at least one related record), with the target's enum names
  // (each relation's looked up once, not once per filter: a target's every field has several)
  const through = new Map(
    r.relations.map((relation) => {
      const target = targetOf(api, relation);
      return [relation.name, { relation, enums: names.enums(target.name, target.fields) }] as const;
    }),
  );
  const related = relationFilters(api, r).map((f): JsonSchema => {
    const { relation, enums: targetEnums } = through.get(f.relation) ?? {};
    const field = f.field.slice(f.relation.length + 1);
    const enumName = targetEnums?.[field];
    const schema = enumName === undefined || f.op === 'contains' ? f.value : enumRef(f.value, enumName);
    const whose =
      relation?.kind === 'one'
        ? `whose ${f.relation}'s ${field}`
        : `with at least one of their ${f.relation} whose ${field}`;
    // the other operators are described once, on the listing; the equality filter says what the path means
    return {
      name: f.name,
      in: 'query',
      required: false,
      ...(f.op === 'eq' && { description: `Records ${whose} equals the value (related records the caller may read)` }),
      ...(f.op === 'in'
        ? { style: 'form', explode: false, schema: { type: 'array', items: schema, minItems: 1, maxItems: MAX_IN } }
        : { schema }),
    };
  });
  return [
    ...Object.entries(pagingSchemas(api, r)).map(([name, { description, ...schema }]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema,
    })),
    ...includeParameter(api, r, names),
    ...filters.filter((f) => f.op === 'eq').map(filter),
    ...filters.filter((f) => f.op !== 'eq').map(filter),
    ...related,
  ];
}
