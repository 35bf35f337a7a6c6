/**
 * Sets `key` in `map`, dropping the oldest entry first when the map already holds `max` others: a map that never
 * holds more than `max`, oldest out first. Every cache a client can grow is one (verified tokens, listing statements,
 * row functions).
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (map.size >= max && !map.has(key)) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}
