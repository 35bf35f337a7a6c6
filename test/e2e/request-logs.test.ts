import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { http, startServer, type HttpResult, type RunningServer } from '../helpers/project.js';
import { openTelemetryModulesLoaded, PRELOAD, tracedProject } from '../helpers/telemetry.js';
import { SECRET, token } from '../helpers/tokens.js';

/**
 * SPEC §11 on a served project, without OpenTelemetry: request ids on every path (the answer's X-Request-Id, its
 * problem's `instance` and its log lines agree), a caller's `traceparent` in the log lines, and logs that never hold
 * a token, a cookie or a secret, at any level. Each server starts as `npm start` starts it (with the preload).
 */
let dir: string;
const PLANTED = `planted${randomBytes(8).toString('hex')}`;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeAll(async () => {
  dir = await tracedProject('e2e-request-logs');
});

type Line = Record<string, unknown> & { msg?: string; reqId?: string; traceId?: string; statusCode?: number };
const linesOf = (output: string): Line[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);

async function serve(env: Record<string, string>): Promise<RunningServer> {
  const base = { DATABASE_URL: await databaseUrl('request_logs'), JWT_SECRET: SECRET };
  return startServer(dir, { ...base, ...env }, '/api/healthz', PRELOAD);
}

const bearer = async (subject: string): Promise<Record<string, string>> => ({
  authorization: `Bearer ${await token(subject)}`,
});

/** Sends raw bytes and resolves to what came back before the server closed the connection. */
const raw = (url: string, text: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });

describe('logs hold no token, cookie or secret', () => {
  const NAMES = ['access_token', 'token', 'api_key', 'key', 'secret', 'password', 'Access_Token', 'client_secret'];

  it.each([['trace'], ['']])('at LOG_LEVEL=%j (the default when empty)', async (level) => {
    const server = await serve({ LOG_LEVEL: level });
    const api = `${server.url}/api`;
    const user = await bearer('reader');
    const careless = { ...user, 'x-log-request': '1' };
    try {
      // a token that is not valid, in the header (a 401, and a line saying it was refused)
      expect((await http('GET', `${api}/orders`, undefined, { authorization: `Bearer ${PLANTED}` })).status).toBe(401);
      // a cookie and a key header, logged by code that logs every header
      const cookie = { ...careless, cookie: `session=${PLANTED}; theme=dark`, 'x-api-key': PLANTED };
      expect((await http('GET', `${api}/orders`, undefined, cookie)).status).toBe(200);
      // query parameters named like secrets (a listing refuses those it does not know: a 400, logged as any), on an
      // unknown path, a body refused and a hook that fails
      for (const name of [...NAMES, 'access%5Ftoken', 'apiKey'])
        expect((await http('GET', `${api}/orders?limit=2&${name}=${PLANTED}`, undefined, careless)).status).toBe(400);
      expect((await http('GET', `${api}/nowhere?access_token=${PLANTED}`)).status).toBe(404);
      expect((await http('POST', `${api}/orders?password=${PLANTED}`, { note: 5 }, user)).status).toBe(400);
      expect((await http('GET', `${api}/orders?secret=${PLANTED}`, undefined, { 'x-fail': 'hook' })).status).toBe(500);
      expect((await http('GET', `${api}/orders/%E0%A4%A?token=${PLANTED}`)).status).toBe(400);
      // a request Node cannot parse, its token in a header
      const broken = await raw(
        server.url,
        `GET /api/orders?token=${PLANTED} HTTP/1.1\r\nAuthorization: Bearer ${PLANTED}\r\nbroken\r\n\r\n`,
      );
      expect(broken).toMatch(/^HTTP\/1\.1 400/);
    } finally {
      await server.stop();
    }
    const output = server.output();
    expect(output).not.toContain(PLANTED);
    // the lines were written, redacted: the test saw what it looks for
    expect(output).toContain(`"url":"/api/orders?limit=2&access_token=[REDACTED]"`);
    expect(output).toContain(`"url":"/api/nowhere?access_token=[REDACTED]"`);
    expect(output).toContain(`"authorization":"[REDACTED]"`);
    expect(output).toContain(`"cookie":"[REDACTED]"`);
    expect(output).toContain(`"x-api-key":"[REDACTED]"`);
    expect(output).toContain('careless code logs the url: /api/orders?limit=2&apiKey=[REDACTED]');
    expect(linesOf(output).some((line) => line.msg === 'token refused')).toBe(true);
    if (level === 'trace') {
      expect(linesOf(output).filter((line) => line.msg === 'incoming request').length).toBeGreaterThan(10);
      expect(output).toContain(`"url":"/api/orders?limit=2&Access_Token=[REDACTED]"`);
    }
  });
});

describe('request ids, on every path', () => {
  let server: RunningServer;
  let api: string;
  const answers: { id: string; r: HttpResult }[] = [];

  /** A request with a given id (or none); its answer says an id, which its problem's `instance` carries. */
  async function send(
    id: string | undefined,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ) {
    const r = await http(method, `${api}${url}`, body, { ...headers, ...(id !== undefined && { 'x-request-id': id }) });
    const said = r.headers.get('x-request-id') ?? '';
    if (id !== undefined) expect(said).toBe(id);
    else expect(said).toMatch(UUID_V7);
    if (r.status >= 400) expect(r.body).toMatchObject({ status: r.status, instance: `urn:request:${said}` });
    answers.push({ id: said, r });
    return r;
  }

  beforeAll(async () => {
    server = await serve({ LOG_LEVEL: 'info', RATE_LIMIT_MAX: '3', MAX_EVENT_LOOP_DELAY: '100' });
    api = `${server.url}/api`;
  });

  it('404, 400, 401, 500 from a hook, 429 and 503 under pressure: header, instance and log lines agree', async () => {
    expect((await send('id-404-path', 'GET', '/nowhere', await bearer('a'))).status).toBe(404);
    expect((await send('id-404-record', 'GET', '/orders/999999', await bearer('b'))).status).toBe(404);
    expect((await send(undefined, 'POST', '/orders', await bearer('c'), { note: 5 })).status).toBe(400);
    expect((await send('id-401', 'GET', '/orders', { authorization: 'Bearer not-a-token' })).status).toBe(401);
    expect((await send('id-500-hook', 'GET', '/orders', { ...(await bearer('d')), 'x-fail': 'hook' })).status).toBe(
      500,
    );
    const limited = await bearer('limited');
    for (let i = 0; i < 3; i += 1) expect((await send(undefined, 'GET', '/orders', limited)).status).toBe(200);
    expect((await send('id-429', 'GET', '/orders', limited)).status).toBe(429);
    // the event loop held for 2.5 s: the next request is refused at once, until the delay is measured again
    let refused: HttpResult | undefined;
    for (let attempt = 0; attempt < 3 && refused?.status !== 503; attempt += 1) {
      await http('GET', `${api}/block?ms=2500`, undefined, await bearer(`blocker-${attempt}`));
      refused = await send(`id-503-${attempt}`, 'GET', '/orders', await bearer(`e-${attempt}`));
    }
    expect(refused?.status).toBe(503);
    await server.stop();
    const lines = linesOf(server.output());
    for (const { id, r } of answers) {
      const completed = lines.filter((line) => line.msg === 'request completed' && line.reqId === id);
      expect(completed, id).toHaveLength(1);
      expect(completed[0]?.statusCode, id).toBe(r.status);
    }
    expect(lines.find((line) => line.msg === 'request failed')).toMatchObject({
      reqId: 'id-500-hook',
      err: { message: 'a hook failed' },
    });
    expect(lines.find((line) => line.msg === 'token refused')).toMatchObject({ reqId: 'id-401' });
  });
});

describe('a caller’s traceparent, without OpenTelemetry', () => {
  it('is in the log lines of its request (`traceId`) when valid; nothing of OpenTelemetry is loaded', async () => {
    const server = await serve({ LOG_LEVEL: 'info' });
    const traceId = randomBytes(16).toString('hex');
    const user = { ...(await bearer('tracer')), 'x-log-request': '1' };
    const at = (header: string, id: string) =>
      http('GET', `${server.url}/api/orders`, undefined, { ...user, traceparent: header, 'x-request-id': id });
    await at(`00-${traceId}-${randomBytes(8).toString('hex')}-01`, 'valid');
    await at(`00-${'0'.repeat(32)}-${randomBytes(8).toString('hex')}-01`, 'no-trace');
    await at(`00-${traceId.toUpperCase()}-${randomBytes(8).toString('hex')}-01`, 'upper-case');
    await at(`00-${traceId}-${randomBytes(8).toString('hex')}-01-more`, 'version-00-with-more');
    await server.stop();
    const lines = linesOf(server.output());
    const of = (id: string) => lines.filter((line) => line.reqId === id);
    expect(of('valid').map((line) => line.msg)).toEqual([
      'the headers, as careless code logs them',
      `careless code logs the url: /api/orders`,
      'request completed',
    ]);
    for (const line of of('valid')) expect(line.traceId).toBe(traceId);
    for (const id of ['no-trace', 'upper-case', 'version-00-with-more']) {
      expect(of(id).length, id).toBe(3);
      for (const line of of(id)) expect(line, id).not.toHaveProperty('traceId');
    }
    expect(openTelemetryModulesLoaded(server.output())).toBe(0);
  });
});
