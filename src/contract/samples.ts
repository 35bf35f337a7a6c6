import { typeOf } from '../field-types/index.js';
import type { Field, JsonValue, Resource } from '../model.js';

/**
 * Valid values of a field, made from the definition's own constraints: the examples of the OpenAPI document and the
 * fixtures of the generated tests.
 */

/** A valid value of a field, varied by `n`; undefined when none can be made (a `pattern` it cannot satisfy). */
export const sampleValue = (field: Field, n: number): JsonValue | undefined => typeOf(field).sample(field, n);

/**
 * Sample values of `fields`, varied by `n`, but for read-only fields and references (whose values depend on other
 * records); `complete` is false when a required field has none (a `pattern` none could be made for).
 */
export function sampleBody(
  fields: readonly Field[],
  n: number,
): { body: Record<string, JsonValue>; complete: boolean } {
  const body: Record<string, JsonValue> = {};
  let complete = true;
  for (const field of fields) {
    if (field.readOnly || field.ref !== undefined) continue;
    const value = sampleValue(field, n);
    if (value !== undefined) body[field.name] = value;
    else if (field.required) complete = false;
  }
  return { body, complete };
}

/**
 * The fields a precondition reads (`update: { when }`, `delete: { when }`, an action's `when`): the sample PATCH (the
 * generated tests', the OpenAPI document's example) changes none of them, so that it cannot move the record where
 * later writes are refused (409).
 */
export function preconditionFields(resource: Resource): ReadonlySet<string> {
  const whens = [resource.writableWhen.update, resource.writableWhen.delete, ...resource.actions.map((a) => a.when)];
  return new Set(whens.flat().map((condition) => condition.field));
}

/** A field a PATCH can change and a second valid value for it: not a reference, write-only or unique one. */
export function sampleChange(
  fields: readonly Field[],
  /** fields not to change (those a precondition reads) */
  keep: ReadonlySet<string> = new Set(),
): { field: string; value: JsonValue } | undefined {
  for (const field of fields) {
    if (field.readOnly || field.ref !== undefined || field.writeOnly || field.unique || keep.has(field.name)) continue;
    const first = sampleValue(field, 1);
    const second = sampleValue(field, 2);
    if (second !== undefined && JSON.stringify(first) !== JSON.stringify(second))
      return { field: field.name, value: second };
  }
  return undefined;
}
