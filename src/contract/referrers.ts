import type { Api, Field, Resource } from '../model.js';

/** A stored ref field, with the resource that has it and its ref. */
export interface Referrer {
  from: Resource;
  field: Field;
  ref: NonNullable<Field['ref']>;
}

/** The stored ref fields of an api by the resource they lead to: made once an api. */
const byApi = new WeakMap<Api, ReadonlyMap<string, readonly Referrer[]>>();

/**
 * The stored ref fields that lead to `target`, in the definition's order (resources, then their fields): what may
 * block its delete or be deleted with it (generate/blockers.ts, contract/neighbourhood.ts).
 */
export function referrersOf(api: Api, target: string): readonly Referrer[] {
  let byTarget = byApi.get(api);
  if (byTarget === undefined) {
    const made = new Map<string, Referrer[]>();
    for (const from of api.resources) {
      for (const field of from.fields) {
        const ref = field.ref;
        if (ref === undefined) continue;
        const list = made.get(ref.to);
        if (list === undefined) made.set(ref.to, [{ from, field, ref }]);
        else list.push({ from, field, ref });
      }
    }
    byTarget = made;
    byApi.set(api, byTarget);
  }
  return byTarget.get(target) ?? [];
}

/**
 * The refs to `target` that a delete of one of its records follows (`onDelete: cascade` or `setNull`; a `restrict`
 * one refuses the delete instead): with events, each record they reach gets its event (the generated db/cascade.ts).
 */
export const followedReferrersOf = (api: Api, target: string): readonly FollowedReferrer[] =>
  referrersOf(api, target).filter((r): r is FollowedReferrer => r.ref.onDelete !== 'restrict');

/** A referrer whose ref a delete follows. */
export type FollowedReferrer = Referrer & { ref: { onDelete: 'cascade' | 'setNull' } };
