import { Server } from 'node:net';
import closeWithGrace from 'close-with-grace';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ConfigError, milliseconds } from './config.js';
import type { Lifecycle } from './lifecycle.js';

/**
 * `delayMs` (SHUTDOWN_DELAY, default 5000; 0 under `npm run dev`, which restarts the server on every change): how
 * long the server keeps serving after SIGTERM, /readyz answering 503, so that load balancers stop sending it
 * requests before it stops accepting them. `timeoutMs` (SHUTDOWN_TIMEOUT, default 20000, under Kubernetes' 30 s
 * grace period; 0: no limit): how long after the signal it may take in all; past it, it exits 1 at once.
 */
export interface ShutdownSettings {
  delayMs: number;
  timeoutMs: number;
}

export function readShutdown(env: NodeJS.ProcessEnv): ShutdownSettings {
  const development = env.npm_lifecycle_event === 'dev';
  const delayMs = milliseconds('SHUTDOWN_DELAY', env.SHUTDOWN_DELAY, development ? 0 : 5000, 'none');
  const timeoutMs = milliseconds('SHUTDOWN_TIMEOUT', env.SHUTDOWN_TIMEOUT, 20_000);
  if (timeoutMs !== 0 && timeoutMs <= delayMs) {
    throw new ConfigError(
      `SHUTDOWN_TIMEOUT (${timeoutMs} ms) must be longer than SHUTDOWN_DELAY (${delayMs} ms), or 0 for no limit`,
    );
  }
  return { delayMs, timeoutMs };
}

/**
 * Once it stops accepting, how long the server leaves its keep-alive connections to close by themselves before it
 * closes the ones still idle: a client sends its next request on one, the answer says `Connection: close`
 * (lifecycle.ts), and the connection ends cleanly after it. A connection closed while idle can cross a request its
 * client is sending just then, which the client sees as a reset: after this grace only connections no client used
 * for as long are left, and the stop is sooner when every connection has gone. SHUTDOWN_DELAY when it is shorter: a
 * server told to stop at once (0, and SIGINT) does.
 */
export const IDLE_GRACE_MS = 1000;

/**
 * Stops a listening server gracefully, on SIGTERM (and SIGINT, Ctrl-C, without the delay: a person is waiting):
 * `lifecycle` drains (/readyz answers 503) for `delayMs`; then the server stops accepting connections, every answer
 * closes its connection and the event streams end with a `retry:` hint (lifecycle.ts); after the connections closed
 * (IDLE_GRACE_MS at most), `app.close()` closes those left idle, waits for the requests in flight and runs the
 * onClose hooks, and `after` runs (the database is closed). Then the process exits 0, or 1 when this took longer
 * than `timeoutMs` from the signal, or an uncaught error started it (close-with-grace: it also stops on SIGHUP,
 * SIGQUIT, SIGUSR2 and an uncaught exception or rejection, without the delay). A repeated signal changes nothing
 * (npm forwards a Ctrl-C that the terminal sent the server too).
 */
export function stopOnSignals(
  app: FastifyInstance,
  lifecycle: Lifecycle,
  settings: ShutdownSettings,
  after: () => Promise<void>,
): void {
  const log = app.log;
  let signalled: NodeJS.Signals | undefined;
  let closing = false;
  const grace = closeWithGrace(
    {
      delay: settings.timeoutMs === 0 ? false : settings.timeoutMs,
      skip: ['SIGTERM', 'SIGINT'],
      logger: { error: (message: unknown) => log.error(message) },
      onTimeout: (ms) => log.error(`the shutdown took longer than SHUTDOWN_TIMEOUT (${ms} ms): exiting now`),
    },
    async ({ signal, err }) => {
      closing = true;
      if (err !== undefined) log.error({ err }, 'an uncaught error: shutting down');
      const delayMs = signalled === 'SIGTERM' ? settings.delayMs : 0;
      await stop(app, lifecycle, delayMs, log, signal ?? signalled);
      await after();
      log.info('stopped');
    },
  );
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      log.info({ signal }, 'already shutting down');
      return;
    }
    signalled = signal;
    grace.close();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function stop(
  app: FastifyInstance,
  lifecycle: Lifecycle,
  delayMs: number,
  log: FastifyBaseLogger,
  signal: string | undefined,
): Promise<void> {
  lifecycle.drain();
  log.info(
    { signal, delayMs },
    `shutting down: /readyz answers 503, requests are served for ${delayMs} ms more`,
  );
  if (delayMs > 0) await new Promise((wait) => setTimeout(wait, delayMs));
  const closed = stopAccepting(app.server);
  lifecycle.stop();
  log.info('no longer accepting connections: answering the requests in flight');
  const graceMs = Math.min(IDLE_GRACE_MS, delayMs);
  if (graceMs > 0) await Promise.race([closed, new Promise((wait) => setTimeout(wait, graceMs).unref())]);
  await app.close();
}

/**
 * Closes the listening socket, and resolves once every connection has closed too. Not http.Server's close(): it
 * would also close at once every connection idle at that instant (see IDLE_GRACE_MS). app.close() calls that one
 * later, for the connections still open then (Fastify takes the "not running" it answers as done).
 */
function stopAccepting(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  Server.prototype.close.call(server);
  return closed;
}
