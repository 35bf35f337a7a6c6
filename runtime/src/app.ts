// first: keeps one of Node's tick objects, and so their shape, before the modules below run (see tick-shape.ts)
import './tick-shape.js';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createAuthorizer, type Scope } from './auth/authorize.js';
import { createTokenVerifier } from './auth/verify.js';
import {
  checkAuthConfig,
  readMaxEventLoopDelay,
  readMetrics,
  readTimeouts,
  readTrustProxy,
  type AuthConfig,
  type MetricsSettings,
  type Timeouts,
  type TrustProxy,
  webhookKey,
} from './config.js';
import type { Database } from './db/database.js';
import { EventLog } from './events/log.js';
import { eventRoutes } from './events/routes.js';
import { installContentTypes } from './http/content-types.js';
import { installCors } from './http/cors.js';
import { CustomRoutes } from './http/custom-routes.js';
import { countDocsAssetsApart, installDocs, readDocs } from './http/docs.js';
import { installHealth, type ReadinessCheck } from './http/health.js';
import { installIdempotency } from './http/idempotency.js';
import { refuseOtherMethodsLater, routeEveryMethod } from './http/methods.js';
import { cursorKey } from './http/cursors.js';
import { migrationsApplied, refuseWhileMigrationsPending } from './http/pending-migrations.js';
import { installProblemPages } from './http/problem-pages.js';
import { bucket, clientKey, installRateLimit } from './http/rate-limit.js';
import { noteScanClients } from './http/scan-clients.js';
import { installPressure } from './http/pressure.js';
import { echoRequestId, requestId } from './http/request-id.js';
import { RequestLog, requestLogger } from './http/request-log.js';
import { clientErrorHandler, frameworkErrors, installErrorHandlers } from './http/errors.js';
import { withRedaction } from './http/redact.js';
import { installTracingHooks } from './telemetry/tracing.js';
import { installValidators } from './http/validator.js';
import { registerHooks } from './hooks.js';
import { closingResponses, Lifecycle } from './lifecycle.js';
import { installMetrics } from './metrics/metrics.js';
import { eventSources, makeStores, registerResources } from './resources/index.js';
import { registerRoutes } from './routes.js';
import { ADMIN_ROLE, BODY_LIMIT, CORS, EVENTS, PAGE_SIZE, PREFIX, RATE_LIMIT_MAX } from './settings.js';

// the definition's prefix and administrator role, where the generated tests (and yours) have always found them
export { ADMIN_ROLE, PREFIX };

export interface AppOptions {
  db: Database;
  auth: AuthConfig;
  /** the key that signs page cursors (CURSOR_SECRET); JWT_SECRET's when left out, else one for this process */
  cursorSecret?: string;
  /** requests per client and window (see http/rate-limit.ts); the definition's limit when left out */
  rateLimitMax?: number;
  /** Redis that shares rate-limit counters between instances (REDIS_URL); each instance counts its own without */
  redisUrl?: string;
  logger?: FastifyServerOptions['logger'];
  /** how long a client may take to send a request, and leave a connection idle; from the environment when left out */
  timeouts?: Timeouts;
  /** the proxies whose X-Forwarded-* headers are believed (Fastify's `trustProxy`); TRUST_PROXY when left out */
  trustProxy?: TrustProxy;
  /** above this event loop delay requests are answered 503 (see http/pressure.ts); MAX_EVENT_LOOP_DELAY when left out */
  maxEventLoopDelayMs?: number;
  /** where the server is in its life (see lifecycle.ts, shutdown.ts); one that never drains when left out */
  lifecycle?: Lifecycle;
  /** what /readyz checks besides the database and the lifecycle (see http/health.ts) */
  readiness?: readonly ReadinessCheck[];
  /** /docs and /openapi.json are served; DOCS (`false` turns them off) when left out */
  docs?: boolean;
  /** where Prometheus scrapes GET /metrics (see metrics/metrics.ts); METRICS_PORT when left out; null: no metrics */
  metrics?: MetricsSettings | null;
}

/** Builds the HTTP application on an open, migrated database. Listening is the caller's job (see main.ts). */
export async function buildApp({
  db,
  auth,
  cursorSecret,
  rateLimitMax = RATE_LIMIT_MAX,
  redisUrl,
  logger = false,
  timeouts = readTimeouts(process.env),
  trustProxy = readTrustProxy(process.env.TRUST_PROXY),
  maxEventLoopDelayMs = readMaxEventLoopDelay(process.env),
  lifecycle = new Lifecycle(),
  readiness = [],
  docs = readDocs(process.env.DOCS),
  metrics: metricsAt = readMetrics(process.env),
}: AppOptions): Promise<FastifyInstance> {
  checkAuthConfig(auth);
  const app = Fastify({
    // tokens, cookies and secrets are redacted from every line, at every level (see http/redact.ts)
    logger: withRedaction(logger),
    logController: new RequestLog(),
    childLoggerFactory: requestLogger,
    // X-Request-Id when a client gives a well-formed one, else a UUIDv7 (see http/request-id.ts)
    genReqId: requestId,
    trustProxy,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors,
    clientErrorHandler,
    // requests that arrive while closing are served (with Connection: close), not refused with Fastify's own 503
    return503OnClosing: false,
    // a request sent too slowly is answered 408 and its connection closed (checked every second); Node applies the
    // request timeout only when the headers' own timeout is not longer
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.connectionMs,
    http: {
      // once the server stops accepting, every answer closes its connection (see lifecycle.ts)
      ServerResponse: closingResponses(lifecycle),
      connectionsCheckingInterval: 1000,
      ...(timeouts.requestMs > 0 && { headersTimeout: Math.min(60_000, timeouts.requestMs) }),
    },
  });
  // first: the request spans start before any hook runs (nothing unless traces are exported, see telemetry/)
  installTracingHooks(app);
  app.decorateRequest<Scope | null>('scope', null);
  // before any route: each is counted by its pattern (nothing at all without METRICS_PORT)
  const metrics = await installMetrics(app, db, metricsAt);
  echoRequestId(app);
  routeEveryMethod(app);
  const refuseOtherMethods = refuseOtherMethodsLater(app);
  installValidators(app);
  installContentTypes(app);
  installErrorHandlers(app);
  await installPressure(app, maxEventLoopDelayMs);
  // before the rate limit and the routes: a 429 carries CORS headers too, and each path's 405 leaves OPTIONS to it
  await installCors(app, CORS);
  // MIGRATE_ON_START=false: 503 until `npm run migrate` has applied this version's migrations (with CORS headers)
  await refuseWhileMigrationsPending(app, db, PREFIX);
  await registerHooks(app);

  const events = EVENTS === null ? null : new EventLog(db);
  const stores = makeStores(db, cursorKey(cursorSecret ?? auth.secret), events);
  if (cursorSecret === undefined && auth.secret === undefined) {
    app.log.warn(
      'CURSOR_SECRET is not set: page cursors are signed with a key of this process, which other instances refuse',
    );
  }
  const authorizer = createAuthorizer(createTokenVerifier(auth), ADMIN_ROLE);
  // a listing that scans counts against its client's share (see db/scan-gate.ts)
  const keyOf = clientKey(authorizer);
  noteScanClients(app, (request) => {
    const key = keyOf(request);
    return typeof key === 'string' ? key : bucket(request, undefined);
  });
  countDocsAssetsApart(app, PREFIX, rateLimitMax);
  await installRateLimit(app, authorizer, rateLimitMax, redisUrl);
  installIdempotency(app, db, authorizer);
  await app.register(
    async (api) => {
      installHealth(api, db, [lifecycle.readiness, migrationsApplied(db), ...readiness]);
      installProblemPages(api);
      // the user's routes with a schema join the generated document (see http/custom-routes.ts, src/routes.ts)
      const custom = new CustomRoutes();
      if (docs) await installDocs(api, PREFIX, (document) => custom.merged(document));
      const dependencies = { db, stores, authorizer, prefix: PREFIX, events };
      registerResources(api, dependencies);
      if (EVENTS !== null && events !== null) {
        const sources = eventSources(stores);
        const webhooks = {
          key: webhookKey(process.env) || cursorSecret || auth.secret,
          allowPrivate: process.env.WEBHOOK_ALLOW_PRIVATE === 'true',
        };
        const services = eventRoutes(api, {
          webhooks,
          db,
          log: events,
          sources,
          authorizer,
          adminRole: ADMIN_ROLE,
          settings: EVENTS,
          pageSize: PAGE_SIZE,
          lifecycle,
        });
        metrics?.watchEvents(events, services);
      }
      await api.register(async (own) => {
        custom.watch(own, PREFIX);
        await registerRoutes(own, dependencies);
      });
    },
    { prefix: PREFIX },
  );
  // a known path answers the methods it does not take 405 (a resource's paths do it themselves)
  refuseOtherMethods();
  return app;
}
