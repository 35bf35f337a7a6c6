import type { Api, Resource } from '../model.js';
import { oncePerPair } from '../memo.js';
import type { JsonSchema } from '../contract/json-schemas.js';
import {
  includeSchema,
  listables,
  MAX_IN,
  pagingSchemas,
  relationFilterFields,
  type Listable,
} from '../contract/listing.js';
import { budgetNote, ref } from './parts.js';
import type { SchemaNames } from './schemas.js';

/**
 * A listing's filters in the document: one `deepObject` parameter a field (`views[gte]=10`, `views[in]=1,2`,
 * `author.country[eq]=FR`), whose schema is a named object of the field's operators. Fields of the same type share
 * it (`IntegerFilter`, `DateTimeFilter`…); an enum's operators take its values (`PostStatusFilter`). The server takes
 * `views=10` for `views[eq]=10`, as it always did: the listing's description says so. One parameter a field, not one
 * an operator, keeps a large definition's document and the clients generated from it a fraction of the size.
 */

/** What a filter asks of a field, in words: `views[gte]` is "records whose views is at least this". */
const OPERATORS: Record<string, string> = {
  eq: 'is this value (`field=value` is the same)',
  ne: 'is not this value',
  gt: 'is greater than this',
  gte: 'is at least this',
  lt: 'is less than this',
  lte: 'is at most this',
  in: `is one of these (at most ${MAX_IN}: comma-separated, or the parameter repeated)`,
  contains: 'contains this text (ASCII letters in either case)',
};

const isEnum = (field: Listable): boolean => Array.isArray(field.value.enum);

/** A regular expression's text that matches `text` alone. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The schema of an `in` list inside a filter: its values comma-separated in one string (a client of a deepObject
 * parameter sends each operator's value as it is: openapi-fetch refuses an array there); an enum's say which.
 */
function listOf(field: Listable): JsonSchema {
  const values = (field.value.enum ?? []) as unknown[];
  const one = values.map((v) => literally(String(v))).join('|');
  return { type: 'string', minLength: 1, ...(values.length > 0 && { pattern: `^(${one})(,(${one}))*$` }) };
}

/** The operators of a field as an object schema, `value` the schema of one value. */
function filterSchema(field: Listable, value: JsonSchema): JsonSchema {
  const said = (op: string): JsonSchema => ({ description: `Records whose field ${OPERATORS[op] ?? op}` });
  const properties = field.operators.map((op): [string, JsonSchema] => {
    if (op === 'in') return [op, { ...listOf(field), ...said(op) }];
    if (op === 'contains') return [op, { type: 'string', minLength: 1, ...said(op) }];
    return [op, { ...value, ...said(op) }];
  });
  return {
    type: 'object',
    description: 'A filter on one field: `field[op]=value` for each operator given (OpenAPI style deepObject)',
    properties: Object.fromEntries(properties),
    additionalProperties: false,
  };
}

/** The key of the filter a field of any type but enum shares with every field of its type and operators. */
const sharedKey = (field: Listable): string =>
  `filter:${JSON.stringify({ operators: field.operators, value: field.value })}`;

/** `IntegerFilter`, `DateTimeFilter`, `UuidEqualityFilter` (eq, ne, in only)… */
function sharedName(field: Listable): string {
  const { type, format, minimum } = field.value;
  const formats: Record<string, string> = { 'date-time': 'DateTime', date: 'Date', uuid: 'Uuid' };
  const named = typeof format === 'string' ? formats[format] : undefined;
  const base = named ?? (typeof type === 'string' ? `${type.charAt(0).toUpperCase()}${type.slice(1)}` : 'Value');
  const id = minimum === undefined ? '' : 'Id';
  const equality = type !== 'boolean' && !field.operators.includes('gt') ? 'Equality' : '';
  return `${base}${id}${equality}Filter`;
}

/** The key of a resource's enum field's filter. */
const enumKey = (resource: string, field: string): string => `enumFilter:${resource}.${field}`;

/**
 * The names the filters of `api` claim (SchemaNames), by key: each resource's enums' (`PostStatusFilter`, after
 * the enum's name `of` gives), then the shared ones.
 */
export function filterClaims(api: Api, of: (key: string) => string): [key: string, wanted: string][] {
  const enums = api.resources.flatMap((r) =>
    listables(api, r)
      .filter(isEnum)
      .map((f): [string, string] => [enumKey(r.name, f.name), `${of(`enum:${r.name}.${f.name}`)}Filter`]),
  );
  return [...enums, ...sharedFilters(api).map((f): [string, string] => [sharedKey(f), sharedName(f)])];
}

/** One field of each shared filter `api`'s listings have, in the order first met. */
function sharedFilters(api: Api): Listable[] {
  const seen = new Map<string, Listable>();
  for (const r of api.resources) {
    for (const f of listables(api, r)) if (!isEnum(f) && !seen.has(sharedKey(f))) seen.set(sharedKey(f), f);
  }
  return [...seen.values()];
}

/** The named schemas of the shared filters (the frame's: every resource refers to them). */
export const sharedFilterSchemas = (api: Api, names: SchemaNames): [string, JsonSchema][] =>
  sharedFilters(api).map((f) => [names.of(sharedKey(f)), filterSchema(f, f.value)]);

/** The named schemas of a resource's enum filters (its part's). */
export const enumFilterSchemas = (api: Api, r: Resource, names: SchemaNames): [string, JsonSchema][] =>
  listables(api, r)
    .filter(isEnum)
    .map((f) => [names.of(enumKey(r.name, f.name)), filterSchema(f, names.ref(`enum:${r.name}.${f.name}`))]);

/** A reference to the filter of `field`, of `resource`. */
const filterRef = (names: SchemaNames, resource: string, field: Listable): JsonSchema =>
  names.ref(isEnum(field) ? enumKey(resource, field.name) : sharedKey(field));

/**
 * `include` on a read, where the resource has relations: the listing's (named in its part), where it has one.
 */
export function readIncludeParameter(api: Api, r: Resource, names: SchemaNames): JsonSchema[] {
  const given = includeParameter(api, r, names);
  if (given.length === 0 || !r.operations.includes('list')) return given;
  return [ref('parameters', `${names.of(`record:${r.name}`)}.include`)];
}

/** `include`, where the resource has relations: the paths it takes, comma-separated. */
function includeParameter(api: Api, r: Resource, names: SchemaNames): JsonSchema[] {
  const include = includeSchema(api, r).include;
  if (include === undefined) return [];
  const { description, items: _items, ...schema } = include;
  return [
    {
      name: 'include',
      in: 'query',
      style: 'form',
      explode: false,
      description: `${String(description)}. ${budgetNote(api)}`,
      schema: { ...schema, items: names.ref(`include:${r.name}`) },
    },
  ];
}

/**
 * The query parameters of a listing, in the order a person looks for them: paging and sort, `include`, then one
 * filter a field, then the filters through each relation; each a reference to `components.parameters`, where the
 * resource's part of the document names them (listParameterComponents): a listing's are also those of every nested
 * route to its records (`GET /authors/{id}/books` takes what `GET /books` takes).
 */
export const listParameters = (api: Api, r: Resource, names: SchemaNames): readonly JsonSchema[] => [
  ref('parameters', 'Limit'),
  ref('parameters', 'Cursor'),
  ...listParameterComponents(api, r, names).map(([name]) => ref('parameters', name)),
];

/**
 * The listing parameters of `r` but the paging ones, as named in `components.parameters`: `Book.sort`,
 * `Book.year`, `Book.author.country` (the record's schema name, which no other resource has, then the parameter's).
 * Made once a document: the api is that of the first to ask, the neighbourhood of `r` or of a resource one step from
 * it (a nested listing of `r`): both hold `r`'s relation targets, all that its filters read
 * (contract/neighbourhood.ts).
 */
export const listParameterComponents = (api: Api, r: Resource, names: SchemaNames): readonly [string, JsonSchema][] =>
  listings(names, r, api);

const listings = oncePerPair((names: SchemaNames, r: Resource, api: Api): readonly [string, JsonSchema][] => {
  const filter = (name: string, schema: JsonSchema): JsonSchema => ({
    name,
    in: 'query',
    style: 'deepObject',
    explode: true,
    schema,
  });
  const { sort } = pagingSchemas(api, r);
  const { description, ...sortSchema } = sort ?? {};
  // through relations: `author.country`, `tags.name` (at least one related record: the listing's description says so)
  const related = relationFilterFields(api, r).flatMap(({ relation, fields }) =>
    fields.map((f) => filter(`${relation.name}.${f.name}`, filterRef(names, relation.target, f))),
  );
  const type = names.of(`record:${r.name}`);
  return [
    { name: 'sort', in: 'query', description, schema: sortSchema },
    ...includeParameter(api, r, names),
    ...listables(api, r).map((f) => filter(f.name, filterRef(names, r.name, f))),
    ...related,
  ].map((parameter): [string, JsonSchema] => [`${type}.${String(parameter.name)}`, parameter]);
});
