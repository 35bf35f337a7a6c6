import type { Field, JsonValue } from '../model.js';

/**
 * A value of `field` as the API returns it, and as a record holds it: a datetime in UTC with milliseconds and a Z
 * (`2024-05-01T14:00:00+02:00` is `2024-05-01T12:00:00.000Z`), any other value as it is written. A `when` or `set`
 * value compared with a record must be in this form.
 */
export function asReturned(field: Pick<Field, 'type'> | undefined, value: JsonValue): JsonValue {
  if (field?.type !== 'datetime' || typeof value !== 'string') return value;
  const at = Date.parse(value);
  return Number.isNaN(at) ? value : new Date(at).toISOString();
}
