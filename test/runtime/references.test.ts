import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Authorizer } from '../../runtime/src/auth/authorize.js';
import { ConstraintError, type SqlValue } from '../../runtime/src/db/database.js';
import { HttpProblem } from '../../runtime/src/http/problem.js';
import type { Embedder } from '../../runtime/src/relations/embed.js';
import { References } from '../../runtime/src/relations/references.js';

/**
 * What a create whose foreign key fails answers: the refs sent that name no record, else the owner field the create
 * took from the caller's token when no record has that id, else the route's own words — never a field that is not
 * the one missing (found by a newcomer and a reviewer: a missing ref default was blamed on the caller).
 */
const references = {
  ownerId: { to: 'owners', article: 'an' as const, noun: 'owner' },
  categoryId: { to: 'categories', article: 'a' as const, noun: 'category' },
};
const GENERIC = 'the record that ownerId or categoryId refers to does not exist';

function request(body: Record<string, unknown>): FastifyRequest {
  return {
    body,
    scope: { caller: { subject: 'ann' }, owner: null, admin: false, staff: false },
    routeOptions: { config: { references, constraintMessages: { foreignKey: GENERIC } } },
  } as unknown as FastifyRequest;
}

/** The route's owner check (auth/owner.ts): ownerId, left out, is the caller's subject. */
const owned = (input: Record<string, unknown>) => ({ ...input, ownerId: input.ownerId ?? 'ann' });

/**
 * Runs a create that fails its foreign key, with `existing` records (`collection:id`); what it throws. `sent` is the
 * body with what the route adds before its owners are settled (a nested create's parent), or null when the route
 * settles no owners.
 */
async function refusal(existing: string[], body: Record<string, unknown>, sent: Record<string, unknown> | null = body) {
  const embedder = {
    unreadable: async () => false,
    readsAll: () => true,
    exists: async (to: string, id: SqlValue) => existing.includes(`${to}:${String(id)}`),
  } as unknown as Embedder;
  const authorizer = { verifiedCaller: async () => ({ subject: 'ann' }) } as unknown as Authorizer;
  const refs = new References(embedder, authorizer, references);
  const settled = sent === null ? undefined : { sent, written: owned(sent) };
  const error = await refs
    .write(
      request(body),
      async () => {
        throw new ConstraintError('foreignKey', []);
      },
      settled,
    )
    .then(
      () => expect.fail('the write should fail'),
      (thrown: unknown) => thrown,
    );
  expect(error).toBeInstanceOf(HttpProblem);
  const problem = error as HttpProblem;
  return { status: problem.status, detail: problem.detail, paths: (problem.errors ?? []).map((e) => e.path) };
}

const TAKEN = {
  status: 409,
  detail:
    'ownerId was left out, so it took your token\'s subject ("ann"), and no owner has that id: ownerId refers to an owner by its id, so a caller\'s token subject must be the id of their own owner (staff and the administrator may send ownerId instead)',
  paths: ['/ownerId'],
};

describe('a create whose foreign key fails', () => {
  it.each([
    ['the caller has no owner record, nothing sent', [], {}, TAKEN],
    ['the caller has no owner record, the category sent exists', ['categories:7'], { categoryId: 7 }, TAKEN],
    [
      'the category sent does not exist',
      ['owners:ann'],
      { categoryId: 8 },
      { status: 409, detail: 'no category has the id sent as categoryId (8)', paths: ['/categoryId'] },
    ],
    // the owner exists and so does what was sent: a ref's default, say, is missing; no field is named
    ['the owner exists, nothing sent', ['owners:ann'], {}, { status: 409, detail: GENERIC, paths: [] }],
    [
      'the owner exists, the category sent too',
      ['owners:ann', 'categories:7'],
      { categoryId: 7 },
      { status: 409, detail: GENERIC, paths: [] },
    ],
    [
      'the owner was sent',
      [],
      { ownerId: 'bob' },
      { status: 409, detail: expect.stringMatching(/^no owner has the id sent as ownerId/), paths: ['/ownerId'] },
    ],
  ])('%s', async (_, existing, body, want) => {
    expect(await refusal(existing, body)).toEqual(want);
  });

  it('names the owner taken from the token on a nested create, whose parent comes from its path', async () => {
    expect(await refusal(['categories:7'], {}, { categoryId: 7 })).toEqual(TAKEN);
  });

  it('takes nothing from the caller on a nested create under the owner, whose ref comes from its path', async () => {
    expect(await refusal([], {}, { ownerId: 'ann' })).toEqual({ status: 409, detail: GENERIC, paths: [] });
  });

  it('takes nothing from the caller on a create that settles no owners', async () => {
    expect(await refusal([], {}, null)).toEqual({ status: 409, detail: GENERIC, paths: [] });
  });
});
