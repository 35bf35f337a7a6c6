import type { FastifyRequest, preParsingHookHandler } from 'fastify';
import { HttpProblem } from '../http/problem.js';
import { TokenError, type Caller, type TokenVerifier } from './verify.js';

/** An access rule of the definition: any of its terms grants. The administrator role passes every rule. */
export interface AccessRule {
  public?: true;
  authenticated?: true;
  roles?: readonly string[];
  owner?: true;
}

/**
 * What a request may touch once its rule admitted it: `owner` is the subject it is restricted to when only
 * the rule's `owner` term admitted it, and null when it may touch every record; `staff` says that one of the
 * rule's named roles admitted it (staff act for others: they may set owner fields to anyone).
 */
export interface Scope {
  caller: Caller | undefined;
  owner: string | null;
  admin: boolean;
  staff: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the access guard of a resource route, before the body is even read */
    scope: Scope;
  }
}

export interface Authorizer {
  /**
   * A preParsing hook: 401 without a valid token where one is needed, 403 when the rule does not admit. It runs
   * after the rate limit (onRequest), so that refused requests count too, and before the body is read.
   */
  guard(rule: AccessRule): preParsingHookHandler;
  /**
   * The subject of the request's bearer token once verified (a token verified before answers at once, from the
   * verifier's cache); undefined without a token or with one that is not valid. Never trusts an unverified claim.
   */
  verifiedSubject(request: FastifyRequest): string | undefined | Promise<string | undefined>;
  /** The caller of the request's bearer token once verified, as verifiedSubject: for the rules of embedded records. */
  verifiedCaller(request: FastifyRequest): Caller | undefined | Promise<Caller | undefined>;
  /**
   * Whether the request's caller may read `record` by `rule` (the resource's read rule), `owners` being its owner
   * fields: a write that a wider rule admitted shows nothing of a record its caller may not read. `kept`: the write
   * keeps a caller its rule admitted as an owner one of the record's owners (an update: only staff give records away),
   * who is then one without a look at its fields (a write-only owner field is not among them).
   */
  reads(
    request: FastifyRequest,
    rule: AccessRule,
    record: object,
    owners: readonly string[],
    kept?: boolean,
  ): Promise<boolean>;
}

const challenge = (error?: string): Record<string, string> => ({
  'www-authenticate': error === undefined ? 'Bearer' : `Bearer error="${error}"`,
});

const unauthorized = (detail: string, error?: string): HttpProblem =>
  new HttpProblem(401, 'Unauthorized', detail, undefined, challenge(error));

export const forbidden = (detail: string): HttpProblem => new HttpProblem(403, 'Forbidden', detail);

const ANONYMOUS: Scope = { caller: undefined, owner: null, admin: false, staff: false };

/**
 * Node keeps the first of several Authorization headers; a proxy in front may keep another. A request that sends
 * more than one is refused rather than read as one caller here and another there.
 */
function repeated(request: FastifyRequest): boolean {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]?.length === 13 && raw[i]?.toLowerCase() === 'authorization') count += 1;
  return count > 1;
}

const repeatedProblem = (): HttpProblem =>
  new HttpProblem(
    400,
    'Bad Request',
    'the request has several Authorization headers: send one',
    undefined,
    challenge('invalid_request'),
  );

/** The token of an `Authorization: Bearer <token>` header. */
const tokenOf = (header: string): string | undefined => /^Bearer +([^ ]+) *$/i.exec(header)?.[1];

export function createAuthorizer(verify: TokenVerifier, adminRole: string): Authorizer {
  async function callerOf(request: FastifyRequest): Promise<Caller | undefined> {
    const header = request.headers.authorization;
    if (header === undefined) return undefined;
    const token = tokenOf(header);
    if (token === undefined)
      throw unauthorized('the Authorization header is not "Bearer <token>"', 'invalid_request');
    try {
      return verify.cached(token) ?? (await verify.verify(token));
    } catch (error) {
      if (!(error instanceof TokenError)) throw error;
      request.log.info({ reason: error.message }, 'token refused');
      throw unauthorized('the bearer token is not valid', 'invalid_token');
    }
  }

  /** The scope of a caller the rule admits, or the problem that refuses it. */
  function admit(caller: Caller | undefined, rule: AccessRule): Scope {
    if (rule.public)
      return caller === undefined
        ? ANONYMOUS
        : { caller, owner: null, admin: caller.roles.includes(adminRole), staff: false };
    if (caller === undefined) throw unauthorized('this operation needs a bearer token');
    const admin = caller.roles.includes(adminRole);
    const staff = rule.roles?.some((role) => caller.roles.includes(role)) === true;
    if (admin || staff || rule.authenticated) return { caller, owner: null, admin, staff };
    if (rule.owner) return { caller, owner: caller.subject, admin, staff };
    throw forbidden('your roles do not allow this operation');
  }

  async function scopeOf(request: FastifyRequest, rule: AccessRule): Promise<Scope> {
    if (rule.public) {
      // a public rule needs no token: one that cannot be verified leaves the caller anonymous
      const caller = await callerOf(request).catch((error: unknown) => {
        if (error instanceof HttpProblem) return undefined;
        throw error;
      });
      return admit(caller, rule);
    }
    return admit(await callerOf(request), rule);
  }

  const verifiedCaller = (request: FastifyRequest): Caller | undefined | Promise<Caller | undefined> => {
    const header = request.headers.authorization;
    const token = header === undefined ? undefined : tokenOf(header);
    if (token === undefined) return undefined;
    return (
      verify.cached(token) ??
      verify.verify(token).then(
        (caller) => caller,
        () => undefined,
      )
    );
  };

  async function reads(
    request: FastifyRequest,
    rule: AccessRule,
    record: object,
    owners: readonly string[],
    kept = false,
  ): Promise<boolean> {
    let scope: Scope;
    try {
      scope = admit(await verifiedCaller(request), rule);
    } catch (error) {
      if (error instanceof HttpProblem) return false;
      throw error;
    }
    if (scope.owner === null) return true;
    // the write's own guard restricted it to the caller's records
    if (kept && request.scope?.owner === scope.owner) return true;
    const values = record as Readonly<Record<string, unknown>>;
    return owners.some((owner) => {
      const value = values[owner];
      return (typeof value === 'string' || typeof value === 'number') && String(value) === scope.owner;
    });
  }

  return {
    verifiedCaller,
    reads,
    verifiedSubject: (request) => {
      const header = request.headers.authorization;
      const token = header === undefined ? undefined : tokenOf(header);
      if (token === undefined) return undefined;
      const known = verify.cached(token);
      if (known !== undefined) return known.subject;
      return verify.verify(token).then(
        (caller) => caller.subject,
        () => undefined,
      );
    },
    guard: (rule) => (request, _reply, payload, done) => {
      // the common cases answer at once, without a promise: no token, or a token verified before
      const header = request.headers.authorization;
      if (header !== undefined && repeated(request)) return done(repeatedProblem(), payload);
      const token = header === undefined ? undefined : tokenOf(header);
      const known = token === undefined ? undefined : verify.cached(token);
      if (header === undefined || known !== undefined) {
        try {
          request.scope = admit(known, rule);
          done(null, payload);
        } catch (error) {
          done(error as HttpProblem, payload);
        }
        return;
      }
      scopeOf(request, rule).then(
        (scope) => {
          request.scope = scope;
          done(null, payload);
        },
        (error: Error) => done(error, payload),
      );
    },
  };
}
