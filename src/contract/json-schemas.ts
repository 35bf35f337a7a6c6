import { idSchema, targetIdOf, typeOf, type JsonSchema } from '../field-types/index.js';
import type { Action, Api, Field, Relation, Resource } from '../model.js';
import { isNotNull, writableFields } from '../schema/columns.js';
import { targetOf } from './relations.js';

export type { JsonSchema } from '../field-types/index.js';
export { idSchema } from '../field-types/index.js';

const omit = (schema: JsonSchema, keys: readonly string[]): JsonSchema =>
  Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));

/** The schema of a field's value as a client sends it (constraints included), without nullability. */
const valueSchema = (api: Api, field: Field): JsonSchema => typeOf(field).schema(field, targetIdOf(api, field));

/** Every JSON value but null: a `json` field's value in a request where the definition does not allow null. */
const NOT_NULL_JSON = ['object', 'array', 'string', 'number', 'boolean'];

function withNull(schema: JsonSchema, field: Field): JsonSchema {
  if (field.type === 'json') {
    // any JSON value, null included
    const { type: _, ...any } = schema;
    return any;
  }
  const { type, enum: values, ...rest } = schema;
  return {
    ...rest,
    type: [type, 'null'],
    ...(Array.isArray(values) && { enum: [...values, null] }),
  };
}

function described(schema: JsonSchema, field: Field): JsonSchema {
  return field.description === undefined ? schema : { description: field.description, ...schema };
}

/** A field in a request body: null only where the definition allows it. */
export function inputFieldSchema(api: Api, field: Field): JsonSchema {
  const value = valueSchema(api, field);
  const schema = field.type === 'json' ? { type: NOT_NULL_JSON, ...value } : value;
  const full = field.default === undefined ? schema : { ...schema, default: field.default };
  return described(field.nullable ? withNull(full, field) : full, field);
}

/** A field in a response: null wherever the column may hold NULL. Constraints are left to the request side. */
export function outputFieldSchema(api: Api, field: Field): JsonSchema {
  const schema = omit(valueSchema(api, field), ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'maxDepth']);
  return described(isNotNull(field) ? schema : withNull(schema, field), field);
}

const timestamp: JsonSchema = { type: 'string', format: 'date-time' };

/**
 * A record as the API returns it. Its relations are there only when `include` names them; those of the first level
 * are typed (the target's record, its own relations untyped), so that the response serialiser writes embedded records
 * as fast as the record itself; deeper ones go through JSON.stringify.
 */
export function recordSchema(api: Api, resource: Resource, typedRelations = true): JsonSchema {
  // computed fields follow the stored ones: returned always, null until the user's function says otherwise
  const fields = resource.fields.filter((f) => !f.writeOnly);
  const computed = resource.computed.map((f) => {
    const description = f.description ?? 'Computed by the server from the record (null when it has no value).';
    return [f.name, { ...outputFieldSchema(api, { ...f, description }), readOnly: true }] as const;
  });
  return {
    type: 'object',
    properties: {
      id: idSchema(resource.id),
      ...Object.fromEntries(fields.map((f) => [f.name, outputFieldSchema(api, f)])),
      ...Object.fromEntries(computed),
      createdAt: timestamp,
      updatedAt: timestamp,
      ...Object.fromEntries(resource.relations.map((r) => [r.name, embeddedSchema(api, r, typedRelations)])),
    },
    required: ['id', ...fields.map((f) => f.name), ...resource.computed.map((f) => f.name), 'createdAt', 'updatedAt'],
    additionalProperties: false,
  };
}

/**
 * An embedded relation, present only when `include` names it: a record of the target or null (to-one), or a page of
 * them whose nextCursor continues on the nested route (to-many). Its records are serialised as the target's
 * store decoded them (their write-only fields already left out).
 */
function embeddedSchema(api: Api, relation: Relation, typed: boolean): JsonSchema {
  const target = typed ? recordSchema(api, targetOf(api, relation), false) : undefined;
  if (relation.kind === 'one') {
    const description = `with ?include=${relation.name}: the /${relation.target} record, or null when there is none or it may not be read`;
    return target === undefined ? { description } : { description, ...target, type: ['object', 'null'] };
  }
  const description = `with ?include=${relation.name}: a page of /${relation.target} records, { items, nextCursor }`;
  return target === undefined
    ? { description }
    : {
        description,
        type: 'object',
        properties: { items: { type: 'array', items: target }, nextCursor: { type: ['string', 'null'] } },
        required: ['items', 'nextCursor'],
      };
}

/** POST and PUT bodies: required fields must be present; read-only ones may not be sent. */
export function inputSchema(api: Api, resource: Resource): JsonSchema {
  const fields = writableFields(resource);
  // an owner field defaults to the caller on create and keeps its value on PUT
  const required = fields.filter((f) => f.required && !resource.owners.includes(f.name)).map((f) => f.name);
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, inputFieldSchema(api, f)])),
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}

/** The body of a nested create (`POST /authors/{id}/books`): the input, with the ref field set by the path optional. */
export function inputUnderSchema(api: Api, resource: Resource, field: string): JsonSchema {
  const { required, ...input } = inputSchema(api, resource);
  const left = (required as string[] | undefined)?.filter((name) => name !== field) ?? [];
  return left.length > 0 ? { ...input, required: left } : input;
}

/** PATCH bodies: every field optional, no defaults (an absent field is unchanged). */
export function patchSchema(api: Api, resource: Resource): JsonSchema {
  const fields = writableFields(resource);
  // null removes an optional field's value, as leaving it out of a PUT does (its default, else null)
  const properties = fields.map((f) => {
    const schema = omit(inputFieldSchema(api, f), ['default']);
    return [f.name, patchTakesNull(f, resource.owners) && !f.nullable ? withNull(schema, f) : schema] as const;
  });
  return { type: 'object', properties: Object.fromEntries(properties), additionalProperties: false };
}

export const paramsSchema = (resource: Resource): JsonSchema => ({
  type: 'object',
  properties: { id: idSchema(resource.id) },
  required: ['id'],
});

/** The body of an action: its input fields, required ones required, nothing else. */
export function actionInputSchema(api: Api, action: Action): JsonSchema {
  const required = action.input.filter((f) => f.required).map((f) => f.name);
  return {
    type: 'object',
    properties: Object.fromEntries(action.input.map((f) => [f.name, inputFieldSchema(api, f)])),
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}

/**
 * Whether a PATCH may send null for a field: a nullable one, and any optional one other than the owner field. For a
 * field that is not nullable, null removes its value as leaving it out of a PUT does: its default, or NULL.
 */
export const patchTakesNull = (field: Field, owners: readonly string[]): boolean =>
  field.nullable || (!field.required && !owners.includes(field.name));
