import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { serviceUnavailable } from './problem.js';

/**
 * One condition of readiness: undefined while it holds, else why the server is not ready, in a few words (`the server
 * is shutting down`), which the 503 of /readyz says. It may be async; one that does not answer within
 * CHECK_TIMEOUT_MS counts as not ready. Add one to the list buildApp is given (`readiness`, see serve.ts).
 */
export type ReadinessCheck = () => string | undefined | Promise<string | undefined>;

/** A check that has not answered within this is a reason itself: an orchestrator's probe gives up after 1 s or so. */
export const CHECK_TIMEOUT_MS = 2000;

/** The database answers a statement (on SQLite, in this process: it answers while the process does). */
export const databaseReachable =
  (db: Database): ReadinessCheck =>
  () =>
    db.ping().then(
      () => undefined,
      () => 'the database cannot be reached',
    );

/** Every check's reason, run together, each within CHECK_TIMEOUT_MS; none when the server is ready. */
export async function notReady(checks: readonly ReadinessCheck[]): Promise<string[]> {
  const reasons = await Promise.all(checks.map(withTimeout));
  return reasons.filter((reason): reason is string => reason !== undefined);
}

async function withTimeout(check: ReadinessCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((settle) => {
    timer = setTimeout(
      () => settle(`a check did not answer within ${CHECK_TIMEOUT_MS} ms`),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(check), late]);
  } catch (error) {
    return error instanceof Error ? error.message : 'a check failed';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The health routes, under the prefix as every route, counted by no rate limit and answered while the server is
 * saturated (http/pressure.ts): an orchestrator must not restart an instance, nor take it out of service, for being
 * busy.
 *
 * - `GET /livez`: the process serves HTTP; it asks nothing of the database (a liveness probe: a database outage must
 *   not restart every instance).
 * - `GET /readyz`: the server should be sent requests: every check holds (the database answers, the server is not
 *   shutting down, and what `checks` adds); else a 503 problem naming each reason (a readiness probe, a load
 *   balancer's health check).
 * - `GET /healthz`: the database answers (as it always has; a 503 problem when it cannot).
 */
export function installHealth(app: FastifyInstance, db: Database, checks: readonly ReadinessCheck[]): void {
  const config = { rateLimit: false, pressureExempt: true } as const;
  const schema = { response: { 200: healthSchema } };
  const ready = [databaseReachable(db), ...checks];
  app.get('/livez', { schema, config }, async () => OK);
  app.get('/readyz', { schema, config }, async (_request, reply) => {
    const reasons = await notReady(ready);
    reply.header('cache-control', 'no-store');
    if (reasons.length > 0) throw serviceUnavailable(`not ready: ${reasons.join('; ')}`);
    return OK;
  });
  app.get('/healthz', { schema, config }, async () => {
    await db.ping();
    return OK;
  });
}

const OK = { status: 'ok' } as const;

const healthSchema = {
  type: 'object',
  properties: { status: { type: 'string' } },
  required: ['status'],
};
