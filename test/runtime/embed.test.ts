import { describe, expect, it } from 'vitest';
import type { AccessRule } from '../../runtime/src/auth/authorize.js';
import { readScope, type RelationTarget } from '../../runtime/src/relations/embed.js';

/** Whose embedded records a caller may read: false (none), null (every one), else the owner value they are scoped to. */
const target = (read: AccessRule, owned = true): RelationTarget => ({
  table: 't',
  columns: ['id'],
  idKind: 'text',
  read,
  ...(owned && { owner: { columns: ['owner_id'], kind: 'integer' as const, value: (s: string) => Number(s) } }),
  decode: (row) => row,
  cursorAfter: () => '',
});
const alice = { subject: '7', roles: ['reader'] };
const admin = { subject: '1', roles: ['admin'] };

describe('readScope', () => {
  it.each([
    { name: 'public, anonymous', read: { public: true }, caller: undefined, want: null },
    { name: 'authenticated, anonymous', read: { authenticated: true }, caller: undefined, want: false },
    { name: 'authenticated', read: { authenticated: true }, caller: alice, want: null },
    { name: 'a role the caller has', read: { roles: ['reader'] }, caller: alice, want: null },
    { name: 'a role the caller lacks', read: { roles: ['editor'] }, caller: alice, want: false },
    { name: 'owner: scoped to the owner value of the subject', read: { owner: true }, caller: alice, want: 7 },
    { name: 'owner or a role the caller has', read: { owner: true, roles: ['reader'] }, caller: alice, want: null },
    { name: 'the administrator passes every rule', read: { roles: ['editor'] }, caller: admin, want: null },
    { name: 'owner, anonymous', read: { owner: true }, caller: undefined, want: false },
  ] satisfies { name: string; read: AccessRule; caller: typeof alice | undefined; want: unknown }[])(
    '$name',
    ({ read, caller, want }) => {
      expect(readScope(caller, target(read), 'admin')).toBe(want);
    },
  );

  it('admits nobody by the owner term of a resource without an owner column', () => {
    expect(readScope(alice, target({ owner: true }, false), 'admin')).toBe(false);
  });
});
