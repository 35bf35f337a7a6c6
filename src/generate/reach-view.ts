import { followedReferrersOf } from '../contract/referrers.js';
import type { Api } from '../model.js';

/** A ref that a delete of its target follows, for the events test (test/generated/events.ts, checkReach). */
export interface ReachView {
  target: string;
  holder: string;
  field: string;
  onDelete: 'cascade' | 'setNull';
}

/** The refs a delete follows whose records the tests can make (a create of each) and whose target they can delete. */
export function reachesOf(api: Api, made: ReadonlySet<string>): ReachView[] {
  return api.resources
    .filter((target) => made.has(target.name) && target.operations.includes('delete'))
    .flatMap((target) =>
      followedReferrersOf(api, target.name).flatMap(({ from, field, ref }): ReachView[] =>
        field.readOnly || !made.has(from.name)
          ? []
          : [{ target: target.name, holder: from.name, field: field.name, onDelete: ref.onDelete }],
      ),
    );
}
