import { createServer, type Server } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type * as Prometheus from 'prom-client';
import { ConfigError, type MetricsSettings } from '../config.js';
import type { Database } from '../db/database.js';
import type { EventLog } from '../events/log.js';
import type { EventServices } from '../events/routes.js';
import { countRequests } from './requests.js';
import { watchDatabase, watchEvents } from './series.js';

/** What the application tells the metrics once it has made them: the events' machinery, with `events`. */
export interface Metrics {
  watchEvents(log: EventLog, services: EventServices): void;
}

/**
 * Prometheus metrics (SPEC §11), served in the text format at `GET /metrics` on a listener of their own
 * (`settings`: METRICS_PORT, METRICS_HOST), never on the API's port: requests by route and status with their
 * durations, and refusals (requests.ts); the database's pools, its failed statements, the events, the streams and
 * the webhooks (series.ts); and prom-client's default metrics of the process (CPU, memory, event loop lag, GC).
 * Series of your own made with prom-client's default registry (`new Counter({...})`) are served with them.
 *
 * With `settings` null (METRICS_PORT unset) there is nothing: prom-client is not loaded, no hook is added, nothing
 * listens. The listener opens when the application is ready (before the API listens) and closes with it, after the
 * API's connections: a scrape during a drain still answers.
 */
export async function installMetrics(
  app: FastifyInstance,
  db: Database,
  settings: MetricsSettings | null,
): Promise<Metrics | null> {
  if (settings === null) return null;
  const client = await import('prom-client');
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  countRequests(app, client, registry);
  watchDatabase(client, registry, db);
  let server: Server | undefined;
  app.addHook('onReady', async () => {
    server = await listen(settings, client, registry, app.log);
    app.log.info(`metrics at http://${settings.host}:${settings.port}/metrics`);
  });
  app.addHook('onClose', async () => {
    if (server === undefined) return;
    const closed = new Promise((done) => server?.close(done));
    server.closeAllConnections();
    await closed;
  });
  return { watchEvents: (log, services) => watchEvents(client, registry, db, log, services) };
}

/** The text of a scrape: these metrics, then those of prom-client's default registry (yours), if any. */
async function scrape(client: typeof Prometheus, registry: Prometheus.Registry): Promise<string> {
  const ours = await registry.metrics();
  if (client.register.getMetricsAsArray().length === 0) return ours;
  return `${ours}${ours.endsWith('\n') ? '' : '\n'}${await client.register.metrics()}`;
}

/** Serves GET (and HEAD) /metrics on `port` of `host`; anything else is a 404 or a 405. */
function listen(
  { port, host }: MetricsSettings,
  client: typeof Prometheus,
  registry: Prometheus.Registry,
  log: FastifyBaseLogger,
): Promise<Server> {
  const text = { 'content-type': 'text/plain; charset=utf-8' };
  const server = createServer((request, response) => {
    if ((request.url ?? '/').split('?')[0] !== '/metrics') {
      response.writeHead(404, text).end('no such path: the metrics are at GET /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response
        .writeHead(405, { ...text, allow: 'GET, HEAD' })
        .end(`${request.method} is not allowed: use GET\n`);
      return;
    }
    scrape(client, registry).then(
      (body) =>
        response
          .writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' })
          .end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => {
        log.error({ err: error }, 'the metrics could not be collected');
        response.writeHead(500, text).end('the metrics could not be collected; the server logged why\n');
      },
    );
  });
  // a scraper that sends slowly, or keeps a connection idle, does not hold it for long
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          `cannot listen on ${host}:${port} for the metrics (METRICS_PORT): ${error.code ?? error.message}`,
        ),
      ),
    );
    server.listen({ port, host, exclusive: true }, () => resolve(server));
  });
}
