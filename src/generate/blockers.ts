import type { Api, Field, Resource } from '../model.js';

/** The ref fields of an api by the resource they lead to, with the resource that has them: made once an api. */
const referrersByApi = new WeakMap<Api, ReadonlyMap<string, readonly { from: Resource; field: Field }[]>>();

function referrersOf(api: Api, target: string): readonly { from: Resource; field: Field }[] {
  let byTarget = referrersByApi.get(api);
  if (byTarget === undefined) {
    const made = new Map<string, { from: Resource; field: Field }[]>();
    for (const from of api.resources) {
      for (const field of from.fields) {
        const to = field.ref?.to;
        if (to === undefined) continue;
        const list = made.get(to);
        if (list === undefined) made.set(to, [{ from, field }]);
        else list.push({ from, field });
      }
    }
    byTarget = made;
    referrersByApi.set(api, byTarget);
  }
  return byTarget.get(target) ?? [];
}

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
    for (const { from: r, field: f } of referrersOf(api, deleted)) {
      if (f.ref?.onDelete === 'restrict')
        blockers.push(
          deleted === resource.name ? `${r.name}.${f.name}` : `${r.name}.${f.name}, to the ${deleted} deleted with it`,
        );
      else if (f.ref?.onDelete === 'cascade' && !reached.has(r.name)) {
        reached.add(r.name);
        queue.push(r.name);
      }
    }
  }
  return blockers;
}
