import { describe, expect, it } from 'vitest';
import type { OwnerColumns } from '../../runtime/src/db/list-sql.js';
import { hopsThrough, type RelatedScopes, type RelationFilterSpec } from '../../runtime/src/http/related.js';

const ownerColumn: OwnerColumns = { columns: ['owner_id'], kind: 'text' };
const tags: RelationFilterSpec = {
  target: 'tags',
  join: 'post-tags',
  via: [
    { local: 'id', table: 'post_tags', remote: 'post_id' },
    { local: 'tag_id', table: 'tags', remote: 'id' },
  ],
  columns: { name: { column: 'name', kind: 'text' } },
};
/** the scopes of a caller: by resource, what its read rule lets them see */
const scopes =
  (byResource: Record<string, false | null | string>): RelatedScopes =>
  (resource) => ({ scope: byResource[resource] ?? null, owner: ownerColumn });

/** Which rows each hop of a filter through a relation may look at: the join's, then the target's. */
describe('hopsThrough', () => {
  it.each([
    {
      name: 'every row readable: no owner on any hop',
      given: { 'post-tags': null, tags: null },
      want: { via: tags.via, owners: [] },
    },
    {
      name: "the target's rows scoped to an owner",
      given: { 'post-tags': null, tags: 'alice' },
      want: { via: [tags.via[0], { ...tags.via[1], owner: ownerColumn }], owners: ['alice'] },
    },
    {
      name: 'both scoped: the owners from the last hop out, as the SQL reads them',
      given: { 'post-tags': 'bob', tags: 'alice' },
      want: {
        via: [
          { ...tags.via[0], owner: ownerColumn },
          { ...tags.via[1], owner: ownerColumn },
        ],
        owners: ['alice', 'bob'],
      },
    },
    { name: 'the links unreadable: the filter matches nothing', given: { 'post-tags': false, tags: null }, want: null },
    {
      name: 'the target unreadable: the filter matches nothing',
      given: { 'post-tags': null, tags: false },
      want: null,
    },
  ] satisfies { name: string; given: Record<string, false | null | string>; want: unknown }[])(
    '$name',
    ({ given, want }) => {
      expect(hopsThrough(tags, scopes(given))).toEqual(want);
    },
  );
});
