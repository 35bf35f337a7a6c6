import type { Located, PathSeg } from './positions.js';

/**
 * Keys JavaScript does not keep as names: `__proto__` set on an object sets its prototype. The YAML and JSON parsers
 * keep such a key as data, but zod's records (and any object literal emitted with it) would not: a resource, a field
 * or a key of a JSON default named so would vanish without a word. Each is reported where it is written.
 */
const PROTOTYPE_KEY = '__proto__';

export function prototypeKeys(data: unknown): Located[] {
  const found: Located[] = [];
  const path: PathSeg[] = [];
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    const entries: [PathSeg, unknown][] = Array.isArray(value)
      ? value.map((item: unknown, i) => [i, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      path.push(key);
      if (key === PROTOTYPE_KEY) {
        found.push({
          path: [...path],
          anchor: 'key',
          message: `"${PROTOTYPE_KEY}" cannot be a name or a key: JavaScript reads it as an object's prototype`,
        });
      } else visit(item);
      path.pop();
    }
  };
  visit(data);
  return found;
}
