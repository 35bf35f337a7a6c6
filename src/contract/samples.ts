import RandExp from 'randexp';
import { anchoredPattern, matchesPattern } from '../patterns.js';
import type { Field, JsonValue, Resource } from '../model.js';

/**
 * Valid values of a field, made from the definition's own constraints: the examples of the OpenAPI document and the
 * fixtures of the generated tests.
 */

/** An integer within the field's bounds, different for different `n` unless the bounds leave too few. */
function integerSample(n: number, field: Field): number {
  const low = Math.ceil(field.min ?? -Infinity);
  const high = Math.floor(field.max ?? Infinity);
  if (n >= low && n <= high) return n;
  if (Number.isFinite(low) && Number.isFinite(high)) return low + (n % (high - low + 1));
  return Number.isFinite(low) ? low + n : high - n;
}

/** A number within the field's bounds, different for different `n` (a unique field needs two). */
function numberSample(n: number, field: Field): number {
  const low = field.min ?? -Infinity;
  const high = field.max ?? Infinity;
  // eighths for the first samples (the examples of the document), then finer steps: many distinct values
  if (Number.isFinite(low) && Number.isFinite(high))
    return n < 7 ? low + ((high - low) * (n + 1)) / 8 : low + ((high - low) * ((n % 991) + 1)) / 992;
  if (n + 0.5 >= low && n + 0.5 <= high) return n + 0.5;
  return Number.isFinite(low) ? low + n + 0.5 : high - n - 0.5;
}

/** `base` fitted to the field's lengths; cut short, it keeps `n` at its end, so that samples stay different. */
function sizedText(base: string, field: Field, n: number): string {
  const min = field.minLength ?? 0;
  const max = field.maxLength ?? Infinity;
  const text = base.padEnd(min, 'x');
  if (text.length <= max) return text;
  const suffix = String(n).slice(0, max);
  return text.slice(0, max - suffix.length) + suffix;
}

/** mulberry32: a small, well-known seeded generator, so that samples are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A string that matches `pattern` and the field's lengths, varied by `n`; undefined when none is found. */
function matching(pattern: string, field: Field, n: number): string | undefined {
  const generator = new RandExp(anchoredPattern(pattern));
  generator.max = 8;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    // deterministic: the same n always gives the same string, different n most likely different ones
    const random = seededRandom(n * 7919 + attempt);
    generator.randInt = (low, high) => low + Math.floor(random() * (high - low + 1));
    const value = generator.gen();
    const fits = value.length >= (field.minLength ?? 0) && value.length <= (field.maxLength ?? Infinity);
    if (fits && matchesPattern(pattern, value)) return value;
  }
  return undefined;
}

/** A day in January 2026 for the first samples, then in the months and years after: a different day for each n. */
function dayOf(n: number): string {
  const day = String(10 + (n % 18)).padStart(2, '0');
  const month = String(1 + (Math.floor(n / 18) % 12)).padStart(2, '0');
  return `${2026 + Math.floor(n / 216)}-${month}-${day}`;
}

/** A valid value of a field, varied by `n`; undefined when none can be made (a `pattern` it cannot satisfy). */
export function sampleValue(field: Field, n: number): JsonValue | undefined {
  switch (field.type) {
    case 'string':
      if (field.pattern !== undefined) return matching(field.pattern, field, n);
      if (field.format === 'email') return `sample${n}@example.com`;
      if (field.format === 'url') return `https://example.com/${n}`;
      return sizedText(`Sample ${field.name} ${n}`, field, n);
    case 'text':
      return sizedText(`Some ${field.name} text, number ${n}.`, field, n);
    case 'integer':
      return integerSample(n, field);
    case 'number':
      return numberSample(n, field);
    case 'boolean':
      return n % 2 === 1;
    case 'date':
      return dayOf(n);
    case 'datetime':
      return `${dayOf(n)}T12:00:00.000Z`;
    case 'uuid':
      return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    case 'enum':
      return field.values?.[n % field.values.length] ?? null;
    case 'json':
      return { sample: n, tags: ['a', 'b'] };
    case 'ref':
      return null;
  }
}

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
