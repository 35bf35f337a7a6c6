import type { Field, Resource } from '../model.js';

/** Fields a client writes through POST, PUT and PATCH, in column order. */
export const writableFields = (resource: Resource): Field[] => resource.fields.filter((f) => !f.readOnly);

/** Fields only the server or actions write; set to their default on insert. */
export const serverFields = (resource: Resource): Field[] => resource.fields.filter((f) => f.readOnly);

/** Every stored field, the writable ones first: an insert's columns, and what the store's patch may change. */
export const writtenFields = (resource: Resource): Field[] => [...writableFields(resource), ...serverFields(resource)];

/** A column is NOT NULL when a value is always present: required, or a non-null default, and not nullable. */
export function isNotNull(field: Field): boolean {
  if (field.nullable) return false;
  return field.required || (field.default !== undefined && field.default !== null);
}

/**
 * Whether a PATCH's value for the field is NULL only when the field is not given: it is NOT NULL (a null given takes
 * the default, or the schema refuses it) and not json (whose null is a value). Its column keeps its value where the
 * parameter is NULL, and the statement needs no `given_<field>` flag for it. So your code's own `patch` that gives
 * such a field null, or NaN on SQLite (bound as NULL), leaves it unchanged rather than failing on NOT NULL.
 */
export const patchedUnlessNull = (field: Field): boolean => isNotNull(field) && field.type !== 'json';

/** The owner fields that exist as columns (every one but `id`), in the definition's order. */
export const ownerFields = (resource: Resource): Field[] =>
  resource.owners.flatMap((name) => resource.fields.filter((f) => f.name === name));

/**
 * The owner fields a create may leave out, the first of which then takes the caller (see the generated
 * auth/owner.ts): the client-written ones, unless the first owner is server-set (readOnly, or `id`), which already
 * makes the caller an owner.
 */
export function defaultedOwners(resource: Resource): Field[] {
  const fields = ownerFields(resource);
  if (resource.owners[0] === 'id' || fields[0]?.readOnly !== false) return [];
  return fields.filter((f) => !f.readOnly);
}
