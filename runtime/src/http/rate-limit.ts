import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authorizer } from '../auth/authorize.js';
import { RATE_LIMIT_WINDOW_MS } from '../settings.js';

// where it was before src/settings.ts held it, for code of yours that imports it from here
export { RATE_LIMIT_WINDOW_MS };
import { HttpProblem } from './problem.js';

/**
 * At most `max` requests per client in each window, then 429 with Retry-After (`max` 0: no limit). A client is the subject
 * of a valid bearer token, from its first request on (the token is verified here, and the verifier caches it for the
 * access guard), else its IP address: a token that is not valid counts against the IP, so an unverified claim never
 * chooses a bucket, and traffic without tokens from one address never limits a signed-in user behind it. Counters
 * live in this process, so each instance counts its own clients, unless `redisUrl` (REDIS_URL) is given: then every instance shares its counters through Redis. If Redis cannot be
 * reached, requests are served unlimited rather than refused (and the error is logged). /healthz is not limited.
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
  await app.register(rateLimit, {
    max,
    ...(redis !== undefined && { redis, nameSpace: 'restsmith-rate-limit:', skipOnError: true }),
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator: (request) => {
      const subject = authorizer.verifiedSubject(request);
      return subject instanceof Promise
        ? subject.then((verified) => bucket(request, verified))
        : bucket(request, subject);
    },
    errorResponseBuilder: (_request, context) =>
      new HttpProblem(
        429,
        'Too Many Requests',
        `more than ${context.max} requests ${windowInWords(RATE_LIMIT_WINDOW_MS)}: try again later`,
        undefined,
        {
          'retry-after': String(Math.ceil(context.ttl / 1000)),
        },
      ),
  });
}

/** The counter a request counts in: its verified subject's, else its address's. */
const bucket = (request: FastifyRequest, subject: string | undefined): string =>
  subject === undefined ? `ip:${request.ip}` : `sub:${subject}`;

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
