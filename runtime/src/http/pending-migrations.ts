import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Database } from '../db/database.js';
import { pendingMigrations } from '../db/migration-book.js';
import type { ReadinessCheck } from './health.js';
import { problem } from './problem.js';

export { pendingMigrations } from '../db/migration-book.js';

/** What a 503 says while migrations are pending: their names, and the command that applies them. */
export const pendingDetail = (pending: readonly string[]): string =>
  `the database is not migrated for this version: ${pending.length === 1 ? 'migration' : 'migrations'} ` +
  `${pending.join(', ')} ${pending.length === 1 ? 'is' : 'are'} pending; run \`npm run migrate\``;

/**
 * /readyz's check (http/health.ts): not ready while this version's migrations are pending, with what to run. A
 * database that cannot answer is the database check's reason, not this one's.
 */
export const migrationsApplied =
  (db: Database): ReadinessCheck =>
  () =>
    pendingMigrations(db).then(
      (pending) => (pending.length === 0 ? undefined : pendingDetail(pending)),
      () => undefined,
    );

/** The routes served while migrations are pending: the health checks (`/readyz` says it itself), the problem pages. */
const servedPaths = (prefix: string): ((path: string) => boolean) => {
  const health = new Set(['/livez', '/readyz', '/healthz'].map((path) => prefix + path));
  return (path) => health.has(path) || path.startsWith(`${prefix}/problems/`);
};

/**
 * With MIGRATE_ON_START=false, a server can start on a database whose migrations for this version are still to be
 * applied (by `npm run migrate`): until then, every request but the health checks is answered 503 with a problem
 * document that names them and the command, and Retry-After. The book is read again once a second until they are
 * applied; then the server serves, with no restart. When nothing is pending at start (every start that migrated),
 * no hook is added: requests pay nothing.
 */
export async function refuseWhileMigrationsPending(
  app: FastifyInstance,
  db: Database,
  prefix: string,
): Promise<void> {
  const pending = await pendingMigrations(db).catch(() => []);
  if (pending.length === 0) return;
  let waiting: readonly string[] = pending;
  app.log.warn({ migrations: pending }, pendingDetail(pending));
  const timer = setInterval(() => {
    pendingMigrations(db).then(
      (now) => {
        waiting = now;
        if (now.length > 0) return;
        clearInterval(timer);
        app.log.info('the pending migrations are applied: serving');
      },
      // the database does not answer: the requests say so themselves
      () => undefined,
    );
  }, 1000);
  timer.unref();
  app.addHook('onClose', (_app, done) => {
    clearInterval(timer);
    done();
  });
  const served = servedPaths(prefix);
  const refuse: onRequestHookHandler = (request, _reply, done) => {
    if (waiting.length === 0) return done();
    const path = (request.url.split('?')[0] ?? '').replace(/\/+$/, '');
    if (served(path)) return done();
    done(problem('unavailable', pendingDetail(waiting), undefined, { 'retry-after': '5' }));
  };
  app.addHook('onRequest', refuse);
}
