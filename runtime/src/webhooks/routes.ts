import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import type { Authorizer } from '../auth/authorize.js';
import type { Database, Prepared, Row, SqlValue } from '../db/database.js';
import type { EventFeed } from '../events/feed.js';
import { settledOf } from '../events/settled.js';
import { badRequest, conflict, HttpProblem, notFound } from '../http/problem.js';
import { checkTarget, parseTarget, TargetError } from './address.js';
import type { Dispatcher } from './dispatcher.js';
import { Secrets } from './secrets.js';
import { WEBHOOK_SQL } from './sql.js';

/** Subscriptions one API keeps at most: each is sent every event it asks for. */
export const MAX_WEBHOOKS = 100;

export interface WebhookDependencies {
  db: Database;
  feed: EventFeed;
  authorizer: Authorizer;
  secrets: Secrets;
  dispatcher: Dispatcher;
  allowPrivate: boolean;
  pageSize: { default: number; max: number };
}

type Body = { url?: string; types?: string[] | null; description?: string | null; enabled?: boolean };

/** A subscription as the API returns it (its secret never again after the 201). */
function webhookOf(row: Row) {
  return {
    id: String(row.id),
    url: String(row.url),
    types: row.types === null ? null : (JSON.parse(String(row.types)) as string[]),
    description: row.description === null ? null : String(row.description),
    enabled: row.enabled === 1,
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

function deliveryOf(row: Row) {
  return {
    id: Number(row.seq),
    type: String(row.type),
    // the event as it is sent (seq first), parsed: it is the delivery's body
    event: JSON.parse(String(row.event)) as unknown,
    status: String(row.status),
    attempts: Number(row.attempts),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error === null ? null : String(row.last_error),
    nextAttemptAt: row.next_attempt_at === null ? null : String(row.next_attempt_at),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

const ID = { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } };
const url = { type: 'string', minLength: 1, maxLength: 2000 };
const types = {
  type: ['array', 'null'],
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 200 },
};
const description = { type: ['string', 'null'], maxLength: 1000 };

/**
 * `/webhooks`: the administrator's subscriptions (an Idempotency-Key is not honoured on POST: the stored answer would
 * keep the secret, in clear, in the database), their delivery logs and manual retries (SPEC §6). A URL is checked
 * when it is given (http(s), and no loopback, private or special-purpose address unless WEBHOOK_ALLOW_PRIVATE=true); `types` are
 * resources and event types, as the feed's `types`.
 */
export function webhookRoutes(app: FastifyInstance, dependencies: WebhookDependencies): void {
  const { db, feed, authorizer, secrets, dispatcher, allowPrivate, pageSize } = dependencies;
  const sql = Object.fromEntries(
    Object.entries(WEBHOOK_SQL).map(([key, text]) => [key, db.prepare<Record<string, SqlValue>>(text)]),
  ) as Record<keyof typeof WEBHOOK_SQL, Prepared<Record<string, SqlValue>>>;
  // the administrator alone: a rule no role names
  const preParsing = authorizer.guard({ roles: [] });

  /** The body checked, its URL as parsed (`" HTTP://Example.com"` is stored as `http://example.com/`). */
  const checked = async (body: Body): Promise<Body> => {
    const errors = feed.entryErrors(body.types ?? []);
    if (errors.length > 0) throw badRequest(`types: ${errors.map((e) => e.message).join('; ')}`, errors);
    if (body.url === undefined) return body;
    try {
      await checkTarget(body.url, allowPrivate);
      return { ...body, url: parseTarget(body.url).href };
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      throw new HttpProblem(400, 'Bad Request', error.message, [{ path: '/url', message: error.message }]);
    }
  };
  const found = async (id: string): Promise<Row> => {
    const row = await sql.get.get({ id });
    if (row === undefined) throw notFound('no webhook has this id');
    return row;
  };

  app.post<{ Body: Body }>(
    '/webhooks',
    {
      preParsing,
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: { url, types, description },
        },
      },
    },
    async (request, reply) => {
      const body = await checked(request.body);
      if (Number((await sql.count.get({}))?.count ?? 0) >= MAX_WEBHOOKS) {
        throw conflict(
          `there are ${MAX_WEBHOOKS} webhooks already, the most one API keeps: delete one first`,
        );
      }
      const secret = Secrets.generate();
      const { url: target, types: asked = null, description: text = null } = body;
      const row = await sql.insert.get({
        id: uuidv7(),
        url: target ?? '',
        types: asked === null ? null : JSON.stringify(asked),
        description: text,
        secret: secrets.seal(secret),
        at: new Date().toISOString(),
        settled: await settledOf(db).through(),
      });
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
      const webhook = webhookOf(row);
      return reply
        .code(201)
        .header('location', `${request.url.replace(/\/$/, '')}/${webhook.id}`)
        .send({ ...webhook, secret });
    },
  );

  app.get(
    '/webhooks',
    { preParsing, schema: { querystring: { type: 'object', additionalProperties: false, properties: {} } } },
    async () => ({
      items: (await sql.list.all({})).map(webhookOf),
      nextCursor: null,
    }),
  );

  app.get<{ Params: { id: string } }>(
    '/webhooks/:id',
    { preParsing, schema: { params: ID } },
    async (request) => webhookOf(await found(request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: Body }>(
    '/webhooks/:id',
    {
      preParsing,
      schema: {
        params: ID,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { url, types, description, enabled: { type: 'boolean' } },
        },
      },
    },
    async (request) => {
      const current = webhookOf(await found(request.params.id));
      const next = { ...current, ...(await checked(request.body)) };
      const row = await sql.update.get({
        id: current.id,
        url: next.url,
        types: next.types === null ? null : JSON.stringify(next.types),
        description: next.description,
        enabled: next.enabled ? 1 : 0,
        at: new Date().toISOString(),
      });
      if (row === undefined) throw notFound('no webhook has this id');
      if (next.enabled) dispatcher.wake();
      return webhookOf(row);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/webhooks/:id',
    { preParsing, schema: { params: ID } },
    async (request, reply) => {
      if ((await sql.delete.get({ id: request.params.id })) === undefined)
        throw notFound('no webhook has this id');
      return reply.code(204).send();
    },
  );

  app.get<{
    Params: { id: string };
    Querystring: { status?: 'pending' | 'delivered' | 'failed'; after?: number; limit?: number };
  }>(
    '/webhooks/:id/deliveries',
    {
      preParsing,
      schema: {
        params: ID,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
            after: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            limit: { type: 'integer', minimum: 1, maximum: pageSize.max },
          },
        },
      },
    },
    async (request) => {
      await found(request.params.id);
      const { status = null, after = 0, limit = pageSize.default } = request.query;
      const rows = await sql.deliveries.all({ webhook: request.params.id, after, status, limit });
      const items = rows.map(deliveryOf);
      return { items, nextCursor: items.length === limit ? String(items.at(-1)?.id) : null };
    },
  );

  app.post<{ Params: { id: string; deliveryId: number } }>(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      preParsing,
      schema: {
        params: {
          type: 'object',
          required: ['id', 'deliveryId'],
          properties: { id: { type: 'string', format: 'uuid' }, deliveryId: { type: 'integer', minimum: 1 } },
        },
      },
    },
    async (request, reply) => {
      const key = { webhook: request.params.id, seq: request.params.deliveryId };
      const retried = await sql.retry.get({ ...key, at: new Date().toISOString() });
      if (retried !== undefined) {
        dispatcher.wake();
        return reply.code(202).send(deliveryOf(retried));
      }
      const delivery = await sql.delivery.get(key);
      if (delivery === undefined) throw notFound('this webhook has no delivery with this id');
      throw conflict(`only a failed delivery is retried: this one is ${String(delivery.status)}`);
    },
  );
}
