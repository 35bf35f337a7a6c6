import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, ON_POSTGRES } from '../helpers/database.js';
import { http, startServer, type RunningServer } from '../helpers/project.js';
import {
  listen,
  openTelemetryModulesLoaded,
  PRELOAD,
  receiver,
  spansOf,
  tracedProject,
  waitFor,
  type ExportedSpan,
} from '../helpers/telemetry.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * SPEC §11's traces: a served project started as `npm start` starts it, with OTEL_EXPORTER_OTLP_ENDPOINT set to an
 * OTLP/HTTP receiver of this test (JSON). A request's span continues the caller's trace; on PostgreSQL its
 * statements are its children (SQLite has no statement spans); a webhook send is a span whose trace the receiver
 * gets; the log lines carry the trace id; no span holds a secret of the query string.
 */
const SERVER = 2;
const CLIENT = 3;
const PLANTED = `planted${randomBytes(8).toString('hex')}`;

const collector = receiver();
const hooks = receiver(204);
let server: RunningServer;
let api: string;
let hooksUrl: string;

beforeAll(async () => {
  const [dir, otlp, hooked] = await Promise.all([
    tracedProject('e2e-tracing'),
    listen(collector.server),
    listen(hooks.server),
  ]);
  hooksUrl = hooked;
  const env = {
    DATABASE_URL: await databaseUrl('tracing'),
    JWT_SECRET: SECRET,
    LOG_LEVEL: 'info',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'traced-api',
    // the batch is exported every 100 ms (5 s by default)
    OTEL_BSP_SCHEDULE_DELAY: '100',
    // not what this test is about: a machine busy with other tests is no reason for a 503
    MAX_EVENT_LOOP_DELAY: '0',
  };
  server = await startServer(dir, env, '/api/healthz', PRELOAD);
  api = `${server.url}/api`;
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([collector.server, hooks.server].map((s) => new Promise((closed) => s.close(closed))));
});

const spans = (): ExportedSpan[] => spansOf(collector.received);
const spanOf = (what: string, match: (span: ExportedSpan) => boolean): Promise<ExportedSpan> =>
  waitFor(what, () => spans().find(match));

type Line = Record<string, unknown> & { msg?: string; reqId?: string; traceId?: string };
const lineOf = (reqId: string): Promise<Line> =>
  waitFor(`the log line of ${reqId}`, () =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line)
      .find((line) => line.msg === 'request completed' && line.reqId === reqId),
  );

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('continues the trace of a traceparent: the server span has its trace id and parent, the log line its trace id', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const user = as(await token('tracer'));
    const created = await user(
      'POST',
      `${api}/orders`,
      { note: 'traced' },
      {
        traceparent: `00-${traceId}-${parent}-01`,
        'x-request-id': 'traced-create',
      },
    );
    expect(created.status, created.text).toBe(201);
    const request = await spanOf('the request span', (s) => s.traceId === traceId && s.kind === SERVER);
    expect(request).toMatchObject({
      name: 'POST /api/orders',
      parentSpanId: parent,
      scope: '@fastify/otel',
      service: 'traced-api',
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/api/orders',
        'http.response.status_code': 201,
        'url.path': '/api/orders',
        'http.response.header.x-request-id': ['traced-create'],
      },
    });
    expect(request.status?.code ?? 0).toBe(0);
    expect((await lineOf('traced-create')).traceId).toBe(traceId);

    // the statements a request runs are its span's children, on PostgreSQL (a read: its statement runs in the handler)
    const id = String((created.body as { id: string }).id);
    const readTrace = randomBytes(16).toString('hex');
    await user('GET', `${api}/orders/${id}`, undefined, { traceparent: `00-${readTrace}-${parent}-01` });
    const read = await spanOf('the read span', (s) => s.traceId === readTrace && s.kind === SERVER);
    // and a write's, whose handler runs after its body is read
    await new Promise((exported) => setTimeout(exported, 500));
    const statementsOf = (span: ExportedSpan) =>
      spans().filter((s) => s.scope === '@opentelemetry/instrumentation-pg' && s.parentSpanId === span.spanId);
    if (ON_POSTGRES) {
      expect(statementsOf(read).length).toBeGreaterThan(0);
      expect(statementsOf(request).length).toBeGreaterThan(0);
      for (const statement of [...statementsOf(read), ...statementsOf(request)]) {
        expect(statement.traceId).toBe(statement.parentSpanId === read.spanId ? readTrace : traceId);
        expect(statement.attributes['db.system.name']).toBe('postgresql');
      }
    } else {
      expect(spans().filter((s) => s.scope === '@opentelemetry/instrumentation-pg')).toEqual([]);
    }
  });

  it('keeps the statements of a request whose body arrives after its headers in its trace', async () => {
    const traceId = randomBytes(16).toString('hex');
    const body = JSON.stringify({ note: 'sent late' });
    const bearer = await token('slow');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
        socket.write(
          `POST /api/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\ntraceparent: 00-${traceId}-${randomBytes(8).toString('hex')}-01\r\n` +
            'Connection: close\r\n\r\n',
        );
        // the body comes in a packet of its own, read in the socket's async context (Fastify runs the handler in the
        // request's again)
        setTimeout(() => socket.write(body), 200);
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 201/);
    const span = await spanOf('the span of the late body', (s) => s.traceId === traceId && s.kind === SERVER);
    await new Promise((exported) => setTimeout(exported, 500));
    const statements = spans().filter((s) => s.scope === '@opentelemetry/instrumentation-pg' && s.traceId === traceId);
    if (ON_POSTGRES) {
      expect(statements.map((s) => String(s.attributes['db.query.text']))).toContainEqual(
        expect.stringMatching(/INSERT INTO "orders"/),
      );
      for (const statement of statements) expect(statement.parentSpanId).toBe(span.spanId);
    } else {
      expect(statements).toEqual([]);
    }
  });

  it('starts a trace for a request that has none, which its log lines carry', async () => {
    const r = await http('GET', `${api}/nowhere`, undefined, { 'x-request-id': 'untraced-404' });
    expect(r.status).toBe(404);
    const span = await spanOf('the 404 span', (s) => s.kind === SERVER && s.attributes['url.path'] === '/api/nowhere');
    // a 4xx is not an error of the server's: its status is left unset
    expect(span).toMatchObject({ name: 'GET', attributes: { 'http.response.status_code': 404 } });
    expect(span.status?.code ?? 0).toBe(0);
    expect((await lineOf('untraced-404')).traceId).toBe(span.traceId);
  });

  it('leaves the status of a 4xx unset, though its route threw it', async () => {
    const user = as(await token('asker'));
    expect((await user('GET', `${api}/orders/no-such-id`)).status).toBe(404);
    expect((await user('POST', `${api}/orders`, { note: 5 })).status).toBe(400);
    for (const [status, name] of [
      [404, 'GET /api/orders/:id'],
      [400, 'POST /api/orders'],
    ] as const) {
      const span = await spanOf(
        `the ${status} span`,
        (s) => s.attributes['http.response.status_code'] === status && s.name === name,
      );
      expect(span.status?.code ?? 0, name).toBe(0);
    }
  });

  it('marks a 5xx an error, and records no secret of the query string', async () => {
    const user = as(await token('careless'));
    await user('GET', `${api}/orders?limit=1&access_token=${PLANTED}`, undefined, { 'x-fail': 'hook' });
    const span = await spanOf('the 500 span', (s) => s.kind === SERVER && s.attributes['url.query'] !== undefined);
    expect(span).toMatchObject({
      name: 'GET /api/orders',
      status: { code: 2, message: 'a hook failed' },
      attributes: { 'url.path': '/api/orders', 'url.query': 'limit=1&access_token=[REDACTED]' },
    });
    expect(collector.received.map((r) => r.body).join('\n')).not.toContain(PLANTED);
    expect(server.output()).not.toContain(PLANTED);
  });

  it('sends a webhook in a span of its own, whose trace the receiver gets', async () => {
    const admin = as(await token('root', { roles: ['admin'] }));
    const hook = await admin('POST', `${api}/webhooks`, { url: `${hooksUrl}/orders-hook?signature=${PLANTED}` });
    expect(hook.status, hook.text).toBe(201);
    const user = as(await token('orderer'));
    expect((await user('POST', `${api}/orders`, { note: 'for the hook' })).status).toBe(201);
    const delivered = await waitFor('a delivery', () => hooks.received.find((r) => r.url.startsWith('/orders-hook')));
    const send = await spanOf('the send span', (s) => s.name === 'webhook send');
    expect(send).toMatchObject({
      kind: CLIENT,
      attributes: {
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(hooksUrl).port),
        'http.response.status_code': 204,
        'webhook.message_id': delivered.headers['webhook-id'],
      },
    });
    // the root of its own trace: the dispatcher sends for every request, for none in particular
    expect(send.parentSpanId ?? '').toBe('');
    expect(delivered.headers.traceparent).toBe(`00-${send.traceId}-${send.spanId}-01`);
    expect(JSON.stringify(send)).not.toContain(PLANTED);
  });

  it('loads OpenTelemetry only then', async () => {
    await server.stop();
    expect(openTelemetryModulesLoaded(server.output())).toBeGreaterThan(0);
  });
});
