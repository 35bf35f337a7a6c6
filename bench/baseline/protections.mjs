// PROTECTIONS=1: the baseline with the protections the generated server has by default, as a careful person adds
// them to Fastify: @fastify/rate-limit (in process, RATE_LIMIT_MAX requests a minute per address, with its
// X-RateLimit headers), pino logging each request at LOG_LEVEL, and timeouts for an idle connection (60 s), a whole
// request (30 s, checked every second) and its headers. Not issue #14's judge (the bare baseline is): beside it, the
// bench shows what those protections cost a hand-written server.
import rateLimit from '@fastify/rate-limit';

export const PROTECTED = process.env.PROTECTIONS === '1';

/** Fastify's options: no logger for the bare baseline, the protections' for the protected one */
export const fastifyOptions = PROTECTED
  ? {
      logger: { level: process.env.LOG_LEVEL ?? 'info' },
      connectionTimeout: 60_000,
      requestTimeout: 30_000,
      http: { connectionsCheckingInterval: 1000, headersTimeout: 30_000 },
    }
  : { logger: false };

/** Registers the rate limit when protected. */
export async function protect(app) {
  if (PROTECTED) await app.register(rateLimit, { max: Number(process.env.RATE_LIMIT_MAX ?? 300), timeWindow: 60_000 });
}
