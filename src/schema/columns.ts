import type { Field, Resource } from '../model.js';

/** Fields a client writes through POST, PUT and PATCH, in column order. */
export const writableFields = (resource: Resource): Field[] => resource.fields.filter((f) => !f.readOnly);

/** Fields only the server or actions write; set to their default on insert. */
export const serverFields = (resource: Resource): Field[] => resource.fields.filter((f) => f.readOnly);

/** A column is NOT NULL when a value is always present: required, or a non-null default, and not nullable. */
export function isNotNull(field: Field): boolean {
  if (field.nullable) return false;
  return field.required || (field.default !== undefined && field.default !== null);
}
