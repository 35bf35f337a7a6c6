import type { FastifyInstance, preParsingHookHandler } from 'fastify';
import type { Authorizer } from '../auth/authorize.js';
import type { Database } from '../db/database.js';
import type { Lifecycle } from '../lifecycle.js';
import { HttpProblem } from '../http/problem.js';
import { refusing } from '../http/refusals.js';
import { EventFeed, served, type EventSource } from './feed.js';
import type { EventLog } from './log.js';
import { Retention } from './retention.js';
import { StreamHub } from './stream.js';
import { Dispatcher } from '../webhooks/dispatcher.js';
import { webhookRoutes } from '../webhooks/routes.js';
import { Secrets } from '../webhooks/secrets.js';

/** `events` of the definition (see settings.ts). */
export interface EventSettings {
  /** as the definition wrote it, for messages: `7d` */
  retention: string;
  retentionMs: number;
  webhooks: boolean;
  retry: { attempts: number; firstDelayMs: number };
  /** the resources renamed (`renamedFrom`): old name → new; their past events are the new name's (a migration did it) */
  renamed?: Readonly<Record<string, string>>;
}

export interface EventDependencies {
  db: Database;
  log: EventLog;
  sources: readonly EventSource[];
  authorizer: Authorizer;
  adminRole: string;
  settings: EventSettings;
  pageSize: { default: number; max: number };
  /**
   * the key material of webhook secrets (WEBHOOK_SECRET_KEY, else WEBHOOK_KEY, else CURSOR_SECRET, else JWT_SECRET),
   * and WEBHOOK_ALLOW_PRIVATE
   */
  webhooks: { key: string | undefined; allowPrivate: boolean };
  /** the server's lifecycle: the streams end (with a retry hint) when it stops accepting connections */
  lifecycle: Lifecycle;
}

/** Streams one instance keeps open at most (EVENT_STREAMS_MAX); more are answered 503. */
export const DEFAULT_MAX_STREAMS = 10_000;
/** Streams one client (a token's subject, else an IP address) keeps open on one instance at most; more are a 429. */
export const STREAMS_PER_CLIENT = 10;

/** What the metrics read of the events' machinery (see metrics/series.ts): the streams open, the webhooks' attempts. */
export interface EventServices {
  streams: StreamHub;
  /** with webhooks */
  dispatcher?: Dispatcher;
}

/**
 * `GET /events` (the feed) and `GET /events/stream` (Server-Sent Events), and the retention's cleanup. Both answer
 * every caller, each event filtered by the read rule of its resource; when no resource can be read without a token,
 * they need one.
 */
export function eventRoutes(app: FastifyInstance, dependencies: EventDependencies): EventServices {
  const { db, log, sources, authorizer, adminRole, settings, pageSize, webhooks, lifecycle } = dependencies;
  const feed = new EventFeed(db, sources, adminRole, settings.retention, settings.renamed);
  const maxStreams = Number(process.env.EVENT_STREAMS_MAX ?? DEFAULT_MAX_STREAMS) || DEFAULT_MAX_STREAMS;
  const hub = new StreamHub(db, feed, log, maxStreams);
  const retention = new Retention(db, settings.retentionMs, settings.webhooks);
  retention.start();
  // when the server stops accepting (shutdown.ts), or closes without that step (app.close() alone)
  lifecycle.onStop(() => hub.close());
  app.addHook('preClose', async () => hub.close());
  app.addHook('onClose', async () => retention.stop());
  const services: EventServices = { streams: hub };
  if (settings.webhooks) {
    if (webhooks.key === undefined) {
      throw new Error(
        'webhooks need a key for their signing secrets: set WEBHOOK_SECRET_KEY (32 characters or more), or CURSOR_SECRET',
      );
    }
    const secrets = new Secrets(webhooks.key);
    const dispatcher = new Dispatcher(db, log, secrets, settings.retry, webhooks.allowPrivate, app.log);
    services.dispatcher = dispatcher;
    dispatcher.start();
    // closing finishes the sends under way (each within 10 s) and leaves the others to the next instance
    app.addHook('preClose', async () => dispatcher.stop());
    webhookRoutes(app, {
      db,
      feed,
      authorizer,
      secrets,
      dispatcher,
      allowPrivate: webhooks.allowPrivate,
      pageSize,
    });
  }

  // anyone, when some resource is public; but a token sent must be valid (a 401, never a silently narrower feed)
  const open = authorizer.guard({ public: true });
  const authenticated = authorizer.guard({ authenticated: true });
  const guard: preParsingHookHandler = (request, reply, payload, done) =>
    (feed.public && request.headers.authorization === undefined ? open : authenticated).call(
      app,
      request,
      reply,
      payload,
      done,
    );
  const types = { type: 'string', maxLength: 2000 };
  const after = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

  app.get<{ Querystring: { after?: number; types?: string; limit?: number } }>(
    '/events',
    {
      preParsing: guard,
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { after, types, limit: { type: 'integer', minimum: 1, maximum: pageSize.max } },
        },
      },
    },
    async (request, reply) => {
      const { after, types, limit = pageSize.default } = request.query;
      const visibility = feed.visibility(request.scope.caller, feed.typesOf(types));
      const page = await feed.page(visibility, after, limit);
      const items = page.events.map(served).join(',');
      return reply
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(`{"items":[${items}],"nextCursor":${JSON.stringify(page.nextCursor)}}`);
    },
  );

  app.get<{ Querystring: { after?: number; types?: string }; Headers: { 'last-event-id'?: string } }>(
    '/events/stream',
    {
      preParsing: guard,
      schema: {
        querystring: { type: 'object', additionalProperties: false, properties: { after, types } },
        headers: {
          type: 'object',
          properties: { 'last-event-id': { type: 'string', pattern: '^[0-9]{1,16}$' } },
        },
      },
    },
    async (request, reply) => {
      const resumed = request.headers['last-event-id'];
      const { caller } = request.scope;
      const visibility = feed.visibility(caller, feed.typesOf(request.query.types));
      const from = await feed.start(resumed === undefined ? request.query.after : Number(resumed));
      const client = caller?.subject ?? request.ip;
      if (hub.full || hub.count(client) >= STREAMS_PER_CLIENT) {
        const detail = hub.full
          ? 'this instance streams to as many clients as it may: retry later'
          : `a client keeps ${STREAMS_PER_CLIENT} streams open at most: close one first`;
        throw refusing(
          new HttpProblem(
            hub.full ? 503 : 429,
            hub.full ? 'Service Unavailable' : 'Too Many Requests',
            detail,
            undefined,
            {
              'retry-after': '5',
            },
          ),
          hub.full ? 'streams_full' : 'streams_client',
        );
      }
      const stream = hub.open(visibility, from, {
        client,
        hangUp: () => request.raw.socket.destroy(),
        // a stream ends with its token: the client reconnects with a new one (and is checked again)
        until: caller?.expiresAt,
      });
      // a client that goes away ends its stream here too (and leaves the hub)
      reply.raw.on('close', () => stream.destroy());
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('x-accel-buffering', 'no')
          // the connection ends with the stream: a server closing ends its streams, and waits for no idle socket
          .header('connection', 'close')
          .send(stream)
      );
    },
  );
  return services;
}
