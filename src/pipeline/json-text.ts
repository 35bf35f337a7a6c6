import type { JsonValue } from '../model.js';

/** Thrown where this printer would not print what prettier prints: the caller formats that file with prettier. */
class NotPrettierShaped extends Error {}

/**
 * JSON text exactly as prettier's `json` parser prints JSON.stringify(value, null, 2) at `width` columns (the
 * tests compare the two on whole generated projects): objects expanded, arrays on one line when they fit and hold
 * no non-empty object, else one item a line. Prettier takes seconds on a multi-megabyte OpenAPI document; this takes
 * milliseconds. Returns undefined where prettier's rules are not these (non-ASCII text near a line's end, long
 * arrays of numbers, which prettier fills): the caller uses prettier then.
 */
export function prettierJson(text: string, width: number): string | undefined {
  const value = JSON.parse(text) as JsonValue;
  // prettier keeps an object on one line when its text was: only the shape of JSON.stringify(…, 2) is printed here
  if (text.trimEnd() !== JSON.stringify(value, null, 2)) return undefined;
  try {
    return `${print(value, 0, 0, 0, width)}\n`;
  } catch (error) {
    if (error instanceof NotPrettierShaped) return undefined;
    throw error;
  }
}

/** `value` printed at column `indent`, after `prefix` columns of its line and before `suffix` more (a comma). */
function print(value: JsonValue, indent: number, prefix: number, suffix: number, width: number): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const pad = ' '.repeat(indent + 2);
  const end = `\n${' '.repeat(indent)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const flat = flatArray(value);
    if (flat !== undefined) {
      if (/[^\x20-\x7e]/.test(flat)) throw new NotPrettierShaped();
      if (indent + prefix + flat.length + suffix <= width) return flat;
      if (value.every((item) => typeof item === 'number')) throw new NotPrettierShaped();
    }
    const items = value.map((item, i) => pad + print(item, indent + 2, 0, i < value.length - 1 ? 1 : 0, width));
    return `[\n${items.join(',\n')}${end}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const members = entries.map(([key, item], i) => {
    const name = `${JSON.stringify(key)}: `;
    return pad + name + print(item, indent + 2, name.length, i < entries.length - 1 ? 1 : 0, width);
  });
  return `{\n${members.join(',\n')}${end}}`;
}

/** An array on one line, or undefined when it holds an object with members (prettier keeps those expanded). */
function flatArray(items: readonly JsonValue[]): string | undefined {
  const parts: string[] = [];
  for (const item of items) {
    if (item === null || typeof item !== 'object') parts.push(JSON.stringify(item));
    else if (Array.isArray(item)) {
      const inner = item.length === 0 ? '[]' : flatArray(item);
      if (inner === undefined) return undefined;
      parts.push(inner);
    } else if (Object.keys(item).length === 0) parts.push('{}');
    else return undefined;
  }
  return `[${parts.join(', ')}]`;
}
