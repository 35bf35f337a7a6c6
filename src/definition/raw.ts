/** Helpers for the raw, not yet validated data of a definition. */
import type { PathSeg } from './positions.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path`, or undefined when the path does not exist. */
export function valueAt(data: unknown, path: readonly PathSeg[]): unknown {
  let current = data;
  for (const seg of path) {
    if (Array.isArray(current) && typeof seg === 'number') current = current[seg];
    else if (isRecord(current) && Object.hasOwn(current, String(seg))) current = current[String(seg)];
    else return undefined;
  }
  return current;
}

/** A short description of a value for messages: `"draft"`, `3`, `true`, `a list`, `a map`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (isRecord(value)) return 'a map';
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
export function oneOf(values: readonly string[], quote = true): string {
  const shown = values.map((v) => (quote ? `"${v}"` : v));
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1] ?? ''}`;
}
