import type { Api, Resource } from '../model.js';
import { referrersOf } from '../contract/referrers.js';

/**
 * What may block a delete: the refs that restrict one (cascade and setNull do not), to the record or to the records a
 * cascade deletes with it (`movements.binId, to the bins deleted with it`).
 */
export function blockersOf(api: Api, resource: Resource): string[] {
  const blockers: string[] = [];
  const reached = new Set([resource.name]);
  const queue = [resource.name];
  for (let i = 0; i < queue.length; i++) {
    const deleted = queue[i]!;
    // in the definition's order: resources, then their fields
    for (const { from: r, field: f, ref } of referrersOf(api, deleted)) {
      if (ref.onDelete === 'restrict')
        blockers.push(
          deleted === resource.name ? `${r.name}.${f.name}` : `${r.name}.${f.name}, to the ${deleted} deleted with it`,
        );
      else if (ref.onDelete === 'cascade' && !reached.has(r.name)) {
        reached.add(r.name);
        queue.push(r.name);
      }
    }
  }
  return blockers;
}
