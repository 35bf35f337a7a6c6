import type { Action, Api, Field, IdKind, Relation, Resource } from '../model.js';
import { anchoredPattern } from '../patterns.js';
import { isNotNull, writableFields } from '../schema/columns.js';
import { targetOf } from './relations.js';

/** `format: url` is an absolute http or https URL (the generated server's `uri` format checks the same). */
const WEB_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';

export type JsonSchema = { [key: string]: unknown };

const omit = (schema: JsonSchema, keys: readonly string[]): JsonSchema =>
  Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));

export const idSchema = (kind: IdKind): JsonSchema =>
  kind === 'integer'
    ? { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }
    : { type: 'string', format: 'uuid' };

/** The schema of a field's value as a client sends it (constraints included), without nullability. */
function valueSchema(api: Api, field: Field): JsonSchema {
  switch (field.type) {
    case 'string':
    case 'text':
      return {
        type: 'string',
        ...(field.minLength !== undefined && { minLength: field.minLength }),
        ...(field.maxLength !== undefined && { maxLength: field.maxLength }),
        // the whole value must match: patterns are anchored (and run by RE2 in the generated server)
        ...(field.pattern !== undefined && { pattern: anchoredPattern(field.pattern) }),
        ...(field.pattern === undefined && field.format === 'url' && { pattern: WEB_URL_PATTERN }),
        ...(field.format !== undefined && { format: field.format === 'url' ? 'uri' : 'email' }),
      };
    case 'integer':
      // an integer column holds what JavaScript holds exactly; beyond it values would be rounded
      return {
        type: 'integer',
        minimum: Math.max(field.min ?? -Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
        maximum: Math.min(field.max ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      };
    case 'number':
      return {
        type: 'number',
        ...(field.min !== undefined && { minimum: field.min }),
        ...(field.max !== undefined && { maximum: field.max }),
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'enum':
      return { type: 'string', enum: field.values ?? [] };
    case 'json':
      // see MAX_JSON_DEPTH in the generated http/validator.ts
      return { maxDepth: 32 };
    case 'ref': {
      const target = api.resources.find((r) => r.name === field.ref?.to);
      return idSchema(target?.id ?? 'uuid');
    }
  }
}

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
