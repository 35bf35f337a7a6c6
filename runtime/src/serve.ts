import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { ConfigError, readConfig, webhookKey } from './config.js';
import { connect, DatabaseConnectError, readConnectTimeout } from './db/connect.js';
import { migrate, MigrationError } from './db/migrate.js';
import { DatabaseUrlError, openDatabase } from './db/open.js';
import { readDocs } from './http/docs.js';
import type { ReadinessCheck } from './http/health.js';
import { Lifecycle } from './lifecycle.js';
import { EVENTS } from './settings.js';
import { readShutdown, stopOnSignals } from './shutdown.js';

export interface ServeOptions {
  /**
   * readiness checks of yours, besides the server's own (the database answers, the server is not shutting down):
   * each returns why the server is not ready, or undefined (see http/health.ts)
   */
  readiness?: readonly ReadinessCheck[];
}

/**
 * Runs the server, as `npm start` and the Dockerfile do (src/main.ts calls it): reads the environment (a wrong
 * setting stops it in one line), waits for the database (DATABASE_CONNECT_TIMEOUT), applies pending migrations,
 * builds the app (app.ts), listens, and stops gracefully on SIGTERM (shutdown.ts). Resolves to the app once it
 * listens. A start that fails prints one line (a stack only for a bug) and exits 1.
 */
export async function serve(options: ServeOptions = {}): Promise<FastifyInstance> {
  try {
    return await start(options);
  } catch (error) {
    const known =
      error instanceof ConfigError ||
      error instanceof DatabaseUrlError ||
      error instanceof DatabaseConnectError ||
      error instanceof MigrationError;
    console.error(known ? `${error.name}: ${error.message}` : error);
    process.exit(1);
  }
}

async function start(options: ServeOptions): Promise<FastifyInstance> {
  const config = readConfig();
  const shutdown = readShutdown(process.env);
  const connectTimeoutMs = readConnectTimeout(process.env);
  const docs = readDocs(process.env.DOCS);
  const log = pino({ level: config.logLevel });
  for (const warning of secretWarnings(process.env, EVENTS?.webhooks === true)) log.warn(warning);
  // a server that cannot listen must not migrate the database under the one still serving it
  await checkPortFree(config.host, config.port);
  const db = openDatabase(config.databaseUrl, config.databasePoolSize, config.databaseStatementTimeoutMs);
  await connect(db, connectTimeoutMs, ({ attempt, retryInMs, reason }) =>
    log.warn(
      { attempt, retryInMs },
      `the database cannot be reached (${reason}): trying again in ${retryInMs} ms`,
    ),
  );
  const applied = await migrate(db);
  const lifecycle = new Lifecycle();
  const app = await buildApp({
    db,
    auth: config.auth,
    cursorSecret: config.cursorSecret,
    rateLimitMax: config.rateLimitMax,
    redisUrl: config.redisUrl,
    logger: { level: config.logLevel },
    timeouts: config.timeouts,
    trustProxy: config.trustProxy,
    docs,
    lifecycle,
    readiness: [...(options.readiness ?? [])],
  });
  if (applied.length > 0) app.log.info({ migrations: applied }, `applied ${applied.length} migration(s)`);
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new ConfigError(`cannot listen on ${config.host}:${config.port} (${code})`);
    throw error;
  });
  stopOnSignals(app, lifecycle, shutdown, () => db.close());
  return app;
}

/**
 * In production (NODE_ENV=production), the keys that are derived from JWT_SECRET when not set apart: whoever holds
 * JWT_SECRET can then also forge page cursors, or open the webhooks' signing secrets, and rotating it changes them.
 */
export function secretWarnings(env: NodeJS.ProcessEnv, webhooks: boolean): string[] {
  if (env.NODE_ENV !== 'production' || !env.JWT_SECRET) return [];
  const warnings: string[] = [];
  if (!env.CURSOR_SECRET)
    warnings.push('CURSOR_SECRET is not set: page cursors are signed with a key derived from JWT_SECRET');
  if (webhooks && webhookKey(env) === undefined && !env.CURSOR_SECRET)
    warnings.push(
      'WEBHOOK_SECRET_KEY is not set: webhook signing secrets are sealed with a key derived from JWT_SECRET',
    );
  return warnings;
}

/** Fails with a one-line ConfigError when host:port is taken (or not allowed); port 0 is always free. */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ConfigError(`cannot listen on ${host}:${port} (${error.code ?? error.message})`)),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
