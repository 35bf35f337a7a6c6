import type { FastifyReply, FastifyRequest } from 'fastify';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createAuthorizer, type AccessRule, type Scope } from '../../runtime/src/auth/authorize.js';
import {
  createTokenVerifier,
  MAX_EXP,
  TokenError,
  type Caller,
  type TokenVerifier,
} from '../../runtime/src/auth/verify.js';
import type { HttpProblem } from '../../runtime/src/http/problem.js';

/** Tokens of this table are their callers' names; `bad` is refused. */
const CALLERS: Record<string, Caller> = {
  admin: { subject: 'ada', roles: ['admin'] },
  editor: { subject: 'eve', roles: ['editor'] },
  plain: { subject: 'pat', roles: [] },
};

const verifier: TokenVerifier = {
  cached: () => undefined,
  verify: async (token) => {
    const caller = CALLERS[token];
    if (caller === undefined) throw new TokenError('not a token of this table');
    return caller;
  },
};

const authorizer = createAuthorizer(verifier, 'admin');

/** What the guard of `rule` decides for a request with `authorization`: the scope, or the problem's status. */
async function decide(rule: AccessRule, authorization?: string, repeated = false): Promise<Partial<Scope> | number> {
  const headers = authorization === undefined ? {} : { authorization };
  const once = authorization === undefined ? [] : ['Authorization', authorization];
  const rawHeaders = repeated ? [...once, 'authorization', 'Bearer admin'] : once;
  const request = { headers, raw: { rawHeaders }, log: { info: () => undefined } } as unknown as FastifyRequest;
  const hook = authorizer.guard(rule);
  return new Promise((resolve) => {
    void hook.call(undefined as never, request, {} as FastifyReply, undefined as never, (error) => {
      if (error !== null && error !== undefined) resolve((error as unknown as HttpProblem).status);
      else {
        const { owner, admin, staff, caller } = request.scope;
        resolve({ owner, admin, staff, caller });
      }
    });
  });
}

describe('the access guard', () => {
  it.each<[string, AccessRule, string | undefined, Partial<Scope> | number]>([
    ['public, no token', { public: true }, undefined, { owner: null, admin: false, caller: undefined }],
    // a public rule needs no token: one that is not valid leaves the caller anonymous
    ['public, a bad token', { public: true }, 'Bearer bad', { owner: null, admin: false, caller: undefined }],
    ['authenticated, no token', { authenticated: true }, undefined, 401],
    ['authenticated, a bad token', { authenticated: true }, 'Bearer bad', 401],
    ['authenticated, not Bearer', { authenticated: true }, 'Basic YWRh', 401],
    [
      'authenticated, a token',
      { authenticated: true },
      'Bearer plain',
      { owner: null, admin: false, caller: CALLERS.plain },
    ],
    [
      'a role, the role: staff',
      { roles: ['editor'] },
      'Bearer editor',
      { owner: null, admin: false, staff: true, caller: CALLERS.editor },
    ],
    // staff are callers admitted by a role the rule names, not by authenticated or owner
    ['authenticated or a role, the role', { authenticated: true, roles: ['editor'] }, 'Bearer editor', { staff: true }],
    ['authenticated or a role, another', { authenticated: true, roles: ['editor'] }, 'Bearer plain', { staff: false }],
    ['public, a role token', { public: true, roles: ['editor'] }, 'Bearer editor', { staff: false }],
    ['a role, another', { roles: ['editor'] }, 'Bearer plain', 403],
    ['a role, the administrator', { roles: ['editor'] }, 'Bearer admin', { owner: null, admin: true }],
    // admitted only as an owner: restricted to the caller's own records
    ['owner', { owner: true }, 'Bearer plain', { owner: 'pat', admin: false, staff: false, caller: CALLERS.plain }],
    ['owner or a role, the role', { owner: true, roles: ['editor'] }, 'Bearer editor', { owner: null, staff: true }],
    ['owner, the administrator', { owner: true }, 'Bearer admin', { owner: null, admin: true }],
    ['owner, no token', { owner: true }, undefined, 401],
  ])('%s', async (_case, rule, authorization, want) => {
    const decided = await decide(rule, authorization);
    if (typeof want === 'number') expect(decided).toBe(want);
    else expect(decided).toMatchObject(want);
  });

  it('refuses a request with several Authorization headers (400), whatever the rule', async () => {
    expect(await decide({ public: true }, 'Bearer plain', true)).toBe(400);
    expect(await decide({ authenticated: true }, 'Bearer plain', true)).toBe(400);
  });
});

describe('whether a caller may read a record a write of theirs answers (found by a reviewer)', () => {
  const record = { id: 'n1', ownerId: 'pat', coOwnerId: 7 };
  it.each<[string, AccessRule, string | undefined, boolean]>([
    ['public, no token', { public: true }, undefined, true],
    ['authenticated, a token', { authenticated: true }, 'Bearer plain', true],
    ['authenticated, no token', { authenticated: true }, undefined, false],
    ['authenticated, a bad token', { authenticated: true }, 'Bearer bad', false],
    ['a role, another', { roles: ['reader'] }, 'Bearer editor', false],
    ['a role, the administrator', { roles: ['reader'] }, 'Bearer admin', true],
    ['owner, one of its owners', { owner: true }, 'Bearer plain', true],
    ['owner, not one of its owners', { owner: true }, 'Bearer editor', false],
  ])('%s', async (_case, rule, authorization, want) => {
    const headers = authorization === undefined ? {} : { authorization };
    const request = { headers } as unknown as FastifyRequest;
    expect(await authorizer.reads(request, rule, record, ['ownerId', 'coOwnerId'])).toBe(want);
  });

  it("takes an update's owner for one, without its fields: a write-only owner field is not shown (found by a reviewer)", async () => {
    const request = {
      headers: { authorization: 'Bearer plain' },
      scope: { owner: 'pat' },
    } as unknown as FastifyRequest;
    // the record as the API returns it: its owner field is write-only
    expect(await authorizer.reads(request, { owner: true }, { id: 'n1' }, ['ownerKey'], true)).toBe(true);
    expect(await authorizer.reads(request, { owner: true }, { id: 'n1' }, ['ownerKey'])).toBe(false);
    // a write its rule admitted to every record (staff) proves nothing of who owns it
    const staff = { headers: { authorization: 'Bearer plain' }, scope: { owner: null } } as unknown as FastifyRequest;
    expect(await authorizer.reads(staff, { owner: true }, { id: 'n1' }, ['ownerKey'], true)).toBe(false);
  });

  it('compares a number owner field as the subject writes it, and never a null one', async () => {
    const numbered = createAuthorizer(
      { cached: () => ({ subject: '7', roles: [] }), verify: verifier.verify },
      'admin',
    );
    const request = { headers: { authorization: 'Bearer any' } } as unknown as FastifyRequest;
    expect(await numbered.reads(request, { owner: true }, { ownerId: 7 }, ['ownerId'])).toBe(true);
    const nobody = createAuthorizer(
      { cached: () => ({ subject: 'null', roles: [] }), verify: verifier.verify },
      'admin',
    );
    expect(await nobody.reads(request, { owner: true }, { ownerId: null }, ['ownerId'])).toBe(false);
  });
});

describe('the token verifier', () => {
  const secret = 'a-unit-test-secret-of-32-bytes-or-more';
  const verify = createTokenVerifier({ secret }).verify;
  const signed = (exp: number): Promise<string> =>
    new SignJWT({ roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('far')
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(secret));

  it.each([
    ['the last second of 9999', MAX_EXP, true],
    ['a fraction of a second (RFC 7519 allows it)', Math.floor(Date.now() / 1000) + 3600.5, true],
    ['a second past 9999', MAX_EXP + 1, false],
    ['1e300 (jose takes it)', 1e300, false],
  ])('takes an exp of %s: %s (found in issue 56)', async (_name, exp, taken) => {
    const token = await signed(exp);
    if (taken) expect((await verify(token)).expiresAt).toBe(exp * 1000);
    else await expect(verify(token)).rejects.toBeInstanceOf(TokenError);
  });
});
