import type { Api, Field, Relation, Resource } from '../model.js';
import { oncePerPair } from '../memo.js';
import { ORDERED, targetIdOf, typeOf } from '../field-types/index.js';
import { idSchema, type JsonSchema } from './json-schemas.js';
import { includePaths, targetOf } from './relations.js';

/** What a listing can filter and sort on: a field's column, how its values are stored, and its operators. */
export interface Listable {
  name: string;
  column: string;
  kind: 'text' | 'datetime' | 'integer' | 'number' | 'boolean';
  /** a system column, never NULL (a field's column may be, whatever the definition says of new records) */
  notNull?: true;
  /**
   * a unique email: eq, ne and in compare lower(column) with lower(value), as its unique index does (two addresses
   * that differ only in the case of ASCII letters are the same value)
   */
  folded?: true;
  operators: string[];
  /** the schema of one value in the query string */
  value: JsonSchema;
}

function listable(api: Api, field: Field): Listable | undefined {
  if (field.writeOnly) return undefined;
  const filtering = typeOf(field).filtering(field, targetIdOf(api, field));
  if (filtering === undefined) return undefined;
  return {
    name: field.name,
    column: field.column,
    ...(field.unique && field.format === 'email' && { folded: true as const }),
    kind: filtering.kind,
    operators: [...filtering.operators],
    value: filtering.value,
  };
}

/**
 * Listings are asked for by the views, the OpenAPI document and the generated tests, many times a resource (a ref's
 * filters through its relation read the target's): each is made once per resource of an api (a definition of a
 * hundred resources spent a tenth of a regeneration remaking them).
 */
const perResource = <T>(of: (api: Api, resource: Resource) => T): ((api: Api, resource: Resource) => T) =>
  oncePerPair(of);

/** Every field a listing of `resource` can filter and sort on, system fields included. */
export const listables = perResource((api, resource): readonly Listable[] => {
  const timestamp = (name: string, column: string): Listable => ({
    name,
    column,
    kind: 'datetime',
    notNull: true,
    operators: [...ORDERED],
    value: { type: 'string', format: 'date-time' },
  });
  return [
    {
      name: 'id',
      column: 'id',
      kind: resource.id === 'integer' ? 'integer' : 'text',
      notNull: true,
      // ids are ordered: integers count up, UUIDv7s are ordered by time
      operators: [...ORDERED],
      value: idSchema(resource.id),
    },
    ...resource.fields.flatMap((f) => listable(api, f) ?? []),
    timestamp('createdAt', 'created_at'),
    timestamp('updatedAt', 'updated_at'),
  ];
});

/** One filter of a listing's query string: `field` (equality) or `field[op]`. */
export interface ListFilter {
  name: string;
  field: string;
  op: string;
  /** the schema of one value (an `in` list holds several, comma-separated or the parameter repeated) */
  value: JsonSchema;
}

/** The most values an `in` filter takes. */
export const MAX_IN = 100;

/** Every filter a listing of `resource` takes, field by field, equality first. */
export const listFilters = perResource((api, resource): readonly ListFilter[] =>
  listables(api, resource).flatMap(filtersOf),
);

/** The filters on one field: equality, then one an operator. */
const filtersOf = (f: Listable): ListFilter[] =>
  f.operators.map((op) => ({
    name: op === 'eq' ? f.name : `${f.name}[${op}]`,
    field: f.name,
    op,
    value: op === 'contains' ? { type: 'string', minLength: 1 } : f.value,
  }));

/**
 * The fields a listing of `resource` filters on through each of its relations, one level deep: every field of the
 * related resource a listing of it filters on, and the id of a to-many one; not its timestamps.
 */
export const relationFilterFields = perResource(
  (api, resource): readonly { relation: Relation; fields: readonly Listable[] }[] =>
    resource.relations.map((relation) => {
      // a to-one record's id is the ref field's value, filtered on already
      const left = ['createdAt', 'updatedAt', ...(relation.kind === 'one' ? ['id'] : [])];
      return { relation, fields: listables(api, targetOf(api, relation)).filter((f) => !left.includes(f.name)) };
    }),
);

/**
 * The filters through the relations of `resource` (relationFilterFields): `author.country`,
 * `author.fullName[contains]`, `tags.name` (to-many: at least one related record matches).
 */
export const relationFilters = perResource((api, resource): readonly (ListFilter & { relation: string })[] =>
  relationFilterFields(api, resource).flatMap(({ relation, fields }) =>
    fields.flatMap(filtersOf).map((f) => ({
      ...f,
      name: `${relation.name}.${f.name}`,
      field: `${relation.name}.${f.field}`,
      relation: relation.name,
    })),
  ),
);

/** The paging parameters of every listing of an api: `limit` and `cursor`. */
export function pageSchemas(api: Api): { limit: JsonSchema; cursor: JsonSchema } {
  const { default: size, max } = api.limits.pageSize;
  return {
    limit: { type: 'integer', minimum: 1, maximum: max, default: size, description: 'how many records a page holds' },
    cursor: { type: 'string', minLength: 1, description: 'the nextCursor of the previous page' },
  };
}

/** The paging and sorting parameters of a listing. */
export function pagingSchemas(api: Api, resource: Resource): Record<string, JsonSchema> {
  const sortable = listables(api, resource)
    .map((f) => f.name)
    .join('|');
  return {
    ...pageSchemas(api),
    sort: {
      type: 'string',
      pattern: `^-?(${sortable})(,-?(${sortable}))*$`,
      description: 'comma-separated fields, - before one for descending; ties are broken by id',
    },
  };
}

/** The query string of a listing as the server validates it: limit, cursor, sort, `field` / `field[op]` (`field[eq]` too). */
export function listQuerySchema(api: Api, resource: Resource): JsonSchema {
  const properties: Record<string, JsonSchema> = { ...pagingSchemas(api, resource), ...includeSchema(api, resource) };
  for (const f of [...listFilters(api, resource), ...relationFilters(api, resource)]) {
    // an `in` list arrives comma-separated or repeated: the validator makes it an array, checked value by value
    properties[f.name] = f.op === 'in' ? { type: 'array', items: f.value, maxItems: MAX_IN } : f.value;
    // `field[eq]` is `field`: what a client sends for the `eq` of a deepObject parameter (openapi/filters.ts)
    if (f.op === 'eq') properties[`${f.name}[eq]`] = f.value;
  }
  return { type: 'object', properties, additionalProperties: false };
}

/** `include`, where a resource has relations: comma-separated (or repeated) relation paths to embed. */
export function includeSchema(api: Api, resource: Resource): Record<string, JsonSchema> {
  const paths = includePaths(api, resource);
  if (paths.length === 0) return {};
  return {
    include: {
      type: 'array',
      items: { type: 'string', enum: paths },
      uniqueItems: true,
      maxItems: paths.length,
      description: 'relations to embed, comma-separated; dotted paths go deeper (e.g. author,books.tags)',
    },
  };
}

/** The query string of a read: `include`, where the resource has relations. */
export function readQuerySchema(api: Api, resource: Resource): JsonSchema | undefined {
  const include = includeSchema(api, resource);
  return Object.keys(include).length === 0
    ? undefined
    : { type: 'object', properties: include, additionalProperties: false };
}
