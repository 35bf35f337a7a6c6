import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyOptions, type JWTVerifyResult } from 'jose';
import { setBounded } from '../bounded.js';
import type { AuthConfig } from '../config.js';
import { HttpProblem } from '../http/problem.js';

/** Who is calling: the token's subject and roles. */
export interface Caller {
  subject: string;
  roles: readonly string[];
  /** when the token expires, in ms since the epoch (what ends a live event stream opened with it) */
  expiresAt?: number;
}

/** A token that was sent and refused; the reason is for the server's log, never for the client. */
export class TokenError extends Error {
  override name = 'TokenError';
}

export interface TokenVerifier {
  /** the caller of a token verified before and not expired since, without verifying it again */
  cached(token: string): Caller | undefined;
  verify(token: string): Promise<Caller>;
}

/**
 * The latest `exp` a token may have: the last second of 9999. RFC 7519 sets no bound and jose takes any number, 1e300
 * included, far past what a date holds; a later one is refused as an invalid token (401). A fraction is taken.
 */
export const MAX_EXP = 253_402_300_799;

/** Verified tokens are remembered this long at most (never past their `exp`), and this many at most. */
const CACHE_MS = 5 * 60_000;
const CACHE_SIZE = 10_000;

/**
 * Verifies bearer tokens with jose. The algorithms are pinned: HS256 with `JWT_SECRET`, or RS256/ES256 with
 * the key set at `JWT_JWKS_URL` (fetched when first needed, cached, refetched for an unknown key id).
 * `alg: none`, expired, not-yet-valid and badly signed tokens are refused; issuer and audience are checked when set.
 */
export function createTokenVerifier(config: AuthConfig): TokenVerifier {
  const options = {
    algorithms: config.jwksUrl === undefined ? ['HS256'] : ['RS256', 'ES256'],
    // a token without an expiry would be good forever
    requiredClaims: ['exp'],
    ...(config.issuer !== undefined && { issuer: config.issuer }),
    ...(config.audience !== undefined && { audience: config.audience }),
  };
  const verifyJwt = verifierOf(config, options);
  // insertion-ordered: the first entry is the oldest, evicted first
  const cache = new Map<string, { caller: Caller; until: number }>();
  const cached = (token: string): Caller | undefined => {
    const hit = cache.get(token);
    if (hit === undefined) return undefined;
    if (hit.until > Date.now()) return hit.caller;
    cache.delete(token);
    return undefined;
  };
  const verify = async (token: string): Promise<Caller> => {
    if (verifyJwt === undefined) throw new TokenError('no JWT_SECRET or JWT_JWKS_URL is set');
    try {
      const { payload } = await verifyJwt(token);
      if (typeof payload.sub !== 'string' || payload.sub === '')
        throw new TokenError('the token has no subject');
      // exp is required (and a number: jose checks), so every token has one
      const exp = payload.exp ?? 0;
      if (exp > MAX_EXP) throw new TokenError('the token expires after 9999-12-31T23:59:59Z');
      const roles = payload.roles;
      if (roles !== undefined && !(Array.isArray(roles) && roles.every((role) => typeof role === 'string'))) {
        throw new TokenError('the roles claim is not a list of strings');
      }
      const caller: Caller = {
        subject: payload.sub,
        roles: roles ?? [],
        expiresAt: exp * 1000,
      };
      // cached until it expires at most
      const until = Math.min(exp * 1000, Date.now() + CACHE_MS);
      setBounded(cache, token, { caller, until }, CACHE_SIZE);
      return caller;
    } catch (error) {
      if (error instanceof TokenError) throw error;
      if (error instanceof errors.JOSEError) throw new TokenError(error.code);
      // the key set could not be fetched: the server's problem, not the token's
      throw new HttpProblem(
        503,
        'Service Unavailable',
        'tokens cannot be verified right now; try again later',
        undefined,
        {
          'retry-after': '5',
        },
      );
    }
  };
  return { cached, verify };
}

/** The key set is kept for ten minutes; a token with a key id it lacks refetches it, at most once a second. */
const JWKS_CACHE = { cacheMaxAge: 10 * 60_000, cooldownDuration: 1_000 };

function verifierOf(
  config: AuthConfig,
  options: JWTVerifyOptions,
): ((token: string) => Promise<JWTVerifyResult>) | undefined {
  if (config.jwksUrl !== undefined) {
    const keySet = createRemoteJWKSet(new URL(config.jwksUrl), JWKS_CACHE);
    return (token) => jwtVerify(token, keySet, options);
  }
  if (config.secret !== undefined) {
    const secret = new TextEncoder().encode(config.secret);
    return (token) => jwtVerify(token, secret, options);
  }
  return undefined;
}
