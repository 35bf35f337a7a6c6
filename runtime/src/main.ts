import { createServer } from 'node:net';
import { buildApp } from './app.js';
import { ConfigError, readConfig } from './config.js';
import { migrate, MigrationError } from './db/migrate.js';
import { DatabaseUrlError, openDatabase } from './db/open.js';

/**
 * The server's entry point. restsmith created this file once and never rewrites it: it is yours to change
 * (add plugins, hooks, metrics…). The generated application is built by `buildApp` in app.ts.
 */
async function main(): Promise<void> {
  const config = readConfig();
  // a server that cannot listen must not migrate the database under the one still serving it
  await checkPortFree(config.host, config.port);
  const db = openDatabase(config.databaseUrl, config.databasePoolSize, config.databaseStatementTimeoutMs);
  const applied = await migrate(db);
  const app = await buildApp({
    db,
    auth: config.auth,
    cursorSecret: config.cursorSecret,
    rateLimitMax: config.rateLimitMax,
    redisUrl: config.redisUrl,
    logger: { level: config.logLevel },
    timeouts: config.timeouts,
    trustProxy: config.trustProxy,
  });

  // on SIGTERM or SIGINT: stop accepting, finish the requests in flight, close the database
  const close = (signal: string): void => {
    app.log.info({ signal }, 'shutting down');
    app
      .close()
      .then(() => db.close())
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exitCode = 1;
      });
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);

  if (applied.length > 0) app.log.info({ migrations: applied }, `applied ${applied.length} migration(s)`);
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new ConfigError(`cannot listen on ${config.host}:${config.port} (${code})`);
    throw error;
  });
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

main().catch((error: unknown) => {
  // a configuration or migration problem is a one-line message; anything else is a bug and shows its stack
  const known =
    error instanceof ConfigError || error instanceof DatabaseUrlError || error instanceof MigrationError;
  console.error(known ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
