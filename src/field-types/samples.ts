import RandExp from 'randexp';
import type { Field } from '../model.js';
import { anchoredPattern, matchesPattern } from '../patterns.js';

/** What the types' samples share: valid values made from a field's own constraints, the same on every run. */

/** An integer within the field's bounds, different for different `n` unless the bounds leave too few. */
export function integerSample(n: number, field: Field): number {
  const low = Math.ceil(field.min ?? -Infinity);
  const high = Math.floor(field.max ?? Infinity);
  if (n >= low && n <= high) return n;
  if (Number.isFinite(low) && Number.isFinite(high)) return low + (n % (high - low + 1));
  return Number.isFinite(low) ? low + n : high - n;
}

/** A number within the field's bounds, different for different `n` (a unique field needs two). */
export function numberSample(n: number, field: Field): number {
  const low = field.min ?? -Infinity;
  const high = field.max ?? Infinity;
  // eighths for the first samples (the examples of the document), then finer steps: many distinct values
  if (Number.isFinite(low) && Number.isFinite(high))
    return n < 7 ? low + ((high - low) * (n + 1)) / 8 : low + ((high - low) * ((n % 991) + 1)) / 992;
  if (n + 0.5 >= low && n + 0.5 <= high) return n + 0.5;
  return Number.isFinite(low) ? low + n + 0.5 : high - n - 0.5;
}

/** `base` fitted to the field's lengths; cut short, it keeps `n` at its end, so that samples stay different. */
export function sizedText(base: string, field: Field, n: number): string {
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
export function matching(pattern: string, field: Field, n: number): string | undefined {
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
export function dayOf(n: number): string {
  const day = String(10 + (n % 18)).padStart(2, '0');
  const month = String(1 + (Math.floor(n / 18) % 12)).padStart(2, '0');
  return `${2026 + Math.floor(n / 216)}-${month}-${day}`;
}
