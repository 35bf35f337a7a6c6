import { createHash } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendAsyncHookHandler,
  onSendHookHandler,
  preHandlerAsyncHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import type { Database } from '../db/database.js';
import type { Authorizer } from '../auth/authorize.js';
import { HttpProblem, problem } from './problem.js';

/**
 * Idempotency-Key on POST (creates and actions): the first response to a key is stored per caller for 24 hours
 * and replayed for a repeat with the same body (same status, body, Location and ETag); the same key with another
 * body is a 422. The key is claimed with one INSERT, so two concurrent requests with one key act once: the second
 * waits for the first and replays its answer. A 5xx is not kept, so that a retry can act. The table lives in the
 * database: every instance of the server sees the same keys.
 *
 * Keys belong to the subject of a valid bearer token. A request without one ignores its Idempotency-Key: keys of
 * anonymous callers could only be scoped by IP address, shared by everyone behind one, who could then replay or
 * squat each other's keys.
 */
const SQL = {
  claim: `
    INSERT INTO restsmith_idempotency (caller, key, fingerprint, status, created_at)
    VALUES (:caller, :key, :fingerprint, 0, :created_at)
    ON CONFLICT DO NOTHING`,
  find: `
    SELECT fingerprint, status, headers, body, created_at FROM restsmith_idempotency
    WHERE caller = :caller AND key = :key`,
  complete: `
    UPDATE restsmith_idempotency SET status = :status, headers = :headers, body = :body
    WHERE caller = :caller AND key = :key`,
  release: `DELETE FROM restsmith_idempotency WHERE caller = :caller AND key = :key`,
  expire: `DELETE FROM restsmith_idempotency WHERE created_at < :before`,
};

const TTL_MS = 24 * 60 * 60_000;
/** how long a repeat waits for the first request with its key to finish */
const WAIT_MS = 10_000;
const HEADERS_KEPT = ['location', 'etag', 'content-type'];

/** a type, not an interface: statements bind it as their parameters (a `Record` of SQL values) */
type Claim = {
  caller: string;
  key: string;
};

declare module 'fastify' {
  interface FastifyRequest {
    /** the Idempotency-Key this request claimed, whose response is stored when it is sent */
    idempotency: Claim | null;
  }
  interface FastifyContextConfig {
    /** POST routes whose Idempotency-Key is honoured */
    idempotent?: boolean;
  }
}

export function installIdempotency(app: FastifyInstance, db: Database, authorizer: Authorizer): void {
  const statements = {
    claim: db.prepare<Claim & { fingerprint: string; created_at: string }>(SQL.claim),
    find: db.prepare<Claim>(SQL.find),
    complete: db.prepare<Claim & { status: number; headers: string; body: string }>(SQL.complete),
    release: db.prepare<Claim>(SQL.release),
    expire: db.prepare<{ before: string }>(SQL.expire),
  };
  let lastExpiry = 0;
  app.decorateRequest('idempotency', null);

  const claim: preHandlerAsyncHookHandler = async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return;
    if (key.length === 0 || key.length > 255) {
      throw new HttpProblem(400, 'Bad Request', 'Idempotency-Key must be 1 to 255 characters');
    }
    const subject = request.scope?.caller?.subject ?? (await authorizer.verifiedSubject(request));
    if (subject === undefined) return; // anonymous: the key is ignored (see above)
    const now = Date.now();
    if (now - lastExpiry > 60_000) {
      lastExpiry = now;
      await statements.expire.run({ before: new Date(now - TTL_MS).toISOString() });
    }
    const caller = `sub:${subject}`;
    const fingerprint = fingerprintOf(request);
    for (const deadline = now + WAIT_MS; Date.now() < deadline;) {
      if (
        (await statements.claim.run({ caller, key, fingerprint, created_at: new Date().toISOString() })) > 0
      ) {
        request.idempotency = { caller, key };
        return;
      }
      const stored = await statements.find.get({ caller, key });
      if (stored === undefined) continue; // released or expired meanwhile: claim again
      if (stored.fingerprint !== fingerprint) {
        throw problem('idempotency-mismatch', 'this Idempotency-Key was used with another request body');
      }
      if (stored.status !== 0) return replay(reply, stored.status, stored.headers, stored.body);
      await new Promise((wait) => setTimeout(wait, 25));
    }
    throw problem(
      'conflict-concurrent',
      'a request with this Idempotency-Key is still being processed; try again',
    );
  };

  const keep: onSendAsyncHookHandler = async (request, reply, payload) => {
    const claimed = request.idempotency;
    if (claimed === null) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 500 || (payload !== null && typeof payload !== 'string')) {
      await statements.release.run(claimed);
      return payload;
    }
    const headers = Object.fromEntries(
      HEADERS_KEPT.flatMap((name) => {
        const value = reply.getHeader(name);
        return value === undefined ? [] : [[name, String(value)]];
      }),
    );
    await statements.complete.run({
      ...claimed,
      status: reply.statusCode,
      headers: JSON.stringify(headers),
      body: typeof payload === 'string' ? payload : '',
    });
    return payload;
  };

  // A request without the header goes on at once, as a callback hook does: no promise, no turn of the event loop.
  // With one, the hook is the promise of its work (Fastify takes either from the same hook, call by call).
  const claimIfKeyed: preHandlerHookHandler = (request, reply, done) =>
    request.headers['idempotency-key'] === undefined ? done() : claim.call(app, request, reply);
  const keepIfClaimed: onSendHookHandler = (request, reply, payload, done) =>
    request.idempotency === null ? done(null, payload) : keep.call(app, request, reply, payload);

  // the hooks run on idempotent routes only: every other request pays nothing for them
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), claimIfKeyed];
    route.onSend = [...[route.onSend ?? []].flat(), keepIfClaimed];
  });
}

/**
 * The request an Idempotency-Key stands for: the route, its parameters and its body as JSON means it (the order of
 * an object's members does not matter: the same body sent with its members in another order is the same request).
 */
function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonical(request.body ?? null)}`)
    .digest('hex');
}

/** JSON text with every object's members sorted by name. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([key, member]) => `${JSON.stringify(key)}:${canonical(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function replay(reply: FastifyReply, status: unknown, headers: unknown, body: unknown): FastifyReply {
  const kept = JSON.parse(typeof headers === 'string' ? headers : '{}') as Record<string, string>;
  return reply
    .code(Number(status))
    .headers({ ...kept, 'idempotent-replayed': 'true' })
    .send(typeof body === 'string' && body !== '' ? body : undefined);
}
