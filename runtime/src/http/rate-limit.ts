import { createRequire } from 'node:module';
import rateLimit, { normalizeIP, type FastifyRateLimitStore } from '@fastify/rate-limit';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import type { Authorizer } from '../auth/authorize.js';
import { RATE_LIMIT_WINDOW_MS } from '../settings.js';

// where it was before src/settings.ts held it, for code of yours that imports it from here
export { RATE_LIMIT_WINDOW_MS };
import { HttpProblem } from './problem.js';
import { refusing } from './refusals.js';

/**
 * At most `max` requests per client in each window, then 429 with Retry-After (`max` 0: no limit). A client is the
 * subject of a valid bearer token, from its first request on (the token is verified here, and the verifier caches it
 * for the access guard), else its IP address (an IPv6 address by its /64, as @fastify/rate-limit counts them): a token
 * that is not valid counts against the address, so an unverified claim never chooses a bucket, and traffic without
 * tokens from one address never limits a signed-in user behind it. Counters live in this process, so each instance
 * counts its own clients, unless `redisUrl` (REDIS_URL) is given: then every instance shares its counters through
 * Redis. If Redis cannot be reached, requests are served unlimited rather than refused (and the error is logged).
 * /healthz is not limited, the docs page's assets are counted apart (see http/docs.ts); a route of yours may set its
 * own limit with `config: { rateLimit: { max, timeWindow } }` (@fastify/rate-limit counts it) or none with
 * `config: { rateLimit: false }`.
 */
export async function installRateLimit(
  app: FastifyInstance,
  authorizer: Authorizer,
  max: number,
  redisUrl?: string,
): Promise<void> {
  if (max === 0) return;
  // loaded only when used; while Redis is unreachable a count fails at once (no offline queue) and the request is
  // served: it never waits
  const redis =
    redisUrl === undefined
      ? undefined
      : new (await import('ioredis')).Redis(redisUrl, {
          connectTimeout: 2000,
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
        });
  if (redis !== undefined) {
    let warned = false; // once an outage, not once a retry
    redis.on('ready', () => (warned = false));
    redis.on('error', (error: Error) => {
      if (!warned)
        app.log.warn({ err: error }, 'rate limit: Redis is not reachable, requests are not limited');
      warned = true;
    });
    app.addHook('onClose', async () => {
      // QUIT when connected; else stop reconnecting at once
      await redis.quit().catch(() => redis.disconnect());
    });
  }
  const keyOf = clientKey(authorizer);
  const tooMany = (allowed: number, ttl: number): HttpProblem =>
    refusing(
      new HttpProblem(
        429,
        'Too Many Requests',
        `more than ${allowed} requests ${windowInWords(RATE_LIMIT_WINDOW_MS)}: try again later`,
        undefined,
        { 'retry-after': String(Math.ceil(ttl / 1000)) },
      ),
      'rate_limit',
    );
  await app.register(rateLimit, {
    max,
    // without Redis, the routes that do not set their own limit are counted by countInProcess (below)
    global: redis !== undefined,
    ...(redis !== undefined && { redis, nameSpace: 'restsmith-rate-limit:', skipOnError: true }),
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator: keyOf,
    errorResponseBuilder: (_request, context) => tooMany(context.max, context.ttl),
  });
  if (redis === undefined) countInProcess(app, keyOf, max, tooMany);
}

/** What @fastify/rate-limit counts with in memory (not among its exports): a fixed window per key, in an LRU map. */
type LocalStore = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache: number,
) => FastifyRateLimitStore;
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as LocalStore;

/** how many clients the in-process counters remember (the least recent are forgotten first): the plugin's default */
const CLIENTS = 5000;

/**
 * The in-process limit on every route without a `config.rateLimit` of its own: @fastify/rate-limit's own store and
 * headers, from a callback hook. The plugin's hook is an async function awaiting three promises, and Fastify goes on
 * with the request a microtask later: a few percent of a small GET's CPU time (restsmith's bench/RESULTS.md, session
 * 30). This one answers at once, except for the first request of a token not verified yet.
 */
function countInProcess(
  app: FastifyInstance,
  keyOf: (request: FastifyRequest) => string | Promise<string>,
  max: number,
  tooMany: (max: number, ttl: number) => HttpProblem,
): void {
  const store = new LocalStore(false, false, CLIENTS);
  const count = (key: string, reply: FastifyReply, done: HookHandlerDoneFunction): void =>
    store.incr(
      key,
      (error, counted) => {
        // the local store answers at once and never fails; a request is served rather than refused if it ever did
        if (error !== null || counted === undefined) return done();
        const over = counted.current > max;
        reply
          .header('x-ratelimit-limit', max)
          .header('x-ratelimit-remaining', over ? 0 : max - counted.current)
          .header('x-ratelimit-reset', Math.ceil(counted.ttl / 1000));
        done(over ? tooMany(max, counted.ttl) : undefined);
      },
      RATE_LIMIT_WINDOW_MS,
      max,
    );
  const limit: onRequestHookHandler = (request, reply, done) => {
    const key = keyOf(request);
    if (typeof key === 'string') return count(key, reply, done);
    // a token seen for the first time: counted once verified (a token that is not valid is no subject). Whatever
    // happens meanwhile (the client may be gone), the request goes on or fails once, and nothing rejects unhandled.
    let called = false;
    const once: HookHandlerDoneFunction = (error?: Error) => {
      if (called) return;
      called = true;
      done(error);
    };
    key.then((known) => count(known, reply, once)).catch((error: unknown) => once(error as Error));
  };
  app.addHook('onRoute', (route) => {
    // as the plugin reads it: null is no setting of the route's own
    if (route.config?.rateLimit !== undefined && route.config.rateLimit !== null) return;
    route.onRequest = route.onRequest === undefined ? [limit] : [route.onRequest, limit].flat();
  });
}

/** A request's bucket, once its token (if any) is verified: at once for a token verified before. */
export const clientKey =
  (authorizer: Authorizer) =>
  (request: FastifyRequest): string | Promise<string> => {
    const subject = authorizer.verifiedSubject(request);
    return subject instanceof Promise
      ? subject.then((verified) => bucket(request, verified))
      : bucket(request, subject);
  };

/** The counter a request counts in: its verified subject's, else its address's (an IPv6 one's /64). */
export const bucket = (request: Pick<FastifyRequest, 'ip'>, subject: string | undefined): string => {
  if (subject !== undefined) return `sub:${subject}`;
  // only an IPv6 address has a colon: an IPv4 one is its own key, without normalizeIP's regular expression. A
  // request whose client has gone has no address (undefined, whatever the type says): it counts under the empty one
  const ip: string | undefined = request.ip;
  return ip === undefined ? 'ip:' : `ip:${ip.includes(':') ? normalizeIP(ip) : ip}`;
};

const UNITS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

/** The window as the definition gives it: `per minute`, `per 15 minutes`, `per 1500 milliseconds`. */
export function windowInWords(ms: number): string {
  const [size, unit] = UNITS.find(([size]) => ms % size === 0) ?? [1, 'millisecond'];
  const count = ms / size;
  return count === 1 ? `per ${unit}` : `per ${count} ${unit}s`;
}
