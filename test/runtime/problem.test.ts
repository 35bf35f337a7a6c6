import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  badRequest,
  conflict,
  HttpProblem,
  notFound,
  notImplemented,
  problem,
  problemType,
  requestOrigin,
  serviceUnavailable,
} from '../../runtime/src/http/problem.js';
import { isProblemKind, kindOfStatus, PROBLEM_KINDS, type ProblemKind } from '../../runtime/src/http/problem-kinds.js';
import { html, installProblemPages, problemPage } from '../../runtime/src/http/problem-pages.js';
import { isGivenRequestId, requestId } from '../../runtime/src/http/request-id.js';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';

const KINDS = Object.keys(PROBLEM_KINDS) as ProblemKind[];

describe('notImplemented', () => {
  it.each([
    ['POST /entries/:id/archive', 'POST /entries/{id}/archive has no handler yet: write it in src/handlers/'],
    ['GET /entries/:id/quote', 'GET /entries/{id}/quote has no handler yet: write it in src/handlers/'],
    // the stub of a POST action as an earlier restsmith wrote it into the user's file: its path alone
    ['/entries/export', 'POST /entries/export has no handler yet: write it in src/handlers/'],
  ])('%s: a 501 that names the route', (route, detail) => {
    expect(notImplemented(route)).toMatchObject({ status: 501, title: 'Not Implemented', detail });
    expect(notImplemented(route).toDocument().type).toBe('/api/v1/problems/not-implemented');
  });
});

describe('the kinds of problem', () => {
  it('are lower-case words joined by -, each with a status, a title and what to do', () => {
    for (const kind of KINDS) {
      const info = PROBLEM_KINDS[kind];
      expect(kind).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(info.status).toBeGreaterThanOrEqual(400);
      expect(info.means.length).toBeGreaterThan(20);
      expect(info.todo.length).toBeGreaterThan(10);
    }
  });

  it('give a problem that names no kind one of its status, but where every kind of it has a cause of its own', () => {
    for (const { status } of Object.values(PROBLEM_KINDS)) {
      const kind = kindOfStatus(status);
      // a 422 of your own is not an Idempotency-Key used again
      if (status === 422) expect(kind).toBe('client-error');
      else expect(PROBLEM_KINDS[kind].status).toBe(status);
    }
  });

  it.each([
    [400, 'validation'],
    [404, 'not-found'],
    [409, 'conflict-state'],
    [418, 'client-error'],
    [422, 'client-error'],
    [500, 'internal'],
    [502, 'internal'],
  ])('status %i with no kind named is %s', (status, kind) => {
    expect(new HttpProblem(status, 'x', 'y').kind).toBe(kind);
  });

  it('are known by their own names only', () => {
    expect(KINDS.every(isProblemKind)).toBe(true);
    for (const name of ['__proto__', 'toString', 'constructor', 'Not-Found', ''])
      expect(isProblemKind(name)).toBe(false);
  });

  it.each([
    [badRequest('b'), 'validation', 400],
    [notFound('n'), 'not-found', 404],
    [conflict('c'), 'conflict-state', 409],
    [conflict('c', 'conflict-unique'), 'conflict-unique', 409],
    [serviceUnavailable('s'), 'unavailable', 503],
    [problem('idempotency-mismatch', 'i'), 'idempotency-mismatch', 422],
    [problem('payload-too-large', 'p'), 'payload-too-large', 413],
  ])('the helpers make problems of their kind: %#', (made, kind, status) => {
    expect(made.toDocument()).toMatchObject({
      type: `/api/v1/problems/${kind}`,
      status,
      title: PROBLEM_KINDS[kind as ProblemKind].title,
    });
  });
});

describe('instance', () => {
  it('is the request id as a URN, when the document answers a request', () => {
    expect(notFound('no such post').toDocument('0190b6c4-1d2e-7f00-8000-000000000001')).toEqual({
      type: problemType('not-found'),
      title: 'Not Found',
      status: 404,
      detail: 'no such post',
      instance: 'urn:request:0190b6c4-1d2e-7f00-8000-000000000001',
    });
    expect(notFound('no such post').toDocument()).not.toHaveProperty('instance');
  });

  it('is in every problem the error handler answers with, as X-Request-Id says it', async () => {
    const app = Fastify({ genReqId: requestId });
    installErrorHandlers(app);
    app.get('/boom', async () => {
      throw new Error('a bug');
    });
    const unknown = await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'given-1' } });
    expect(unknown.json()).toMatchObject({
      type: 'http://localhost:80/api/v1/problems/not-found',
      instance: 'urn:request:given-1',
    });
    const bug = await app.inject({ method: 'GET', url: '/boom' });
    expect(bug.json()).toMatchObject({
      type: problemType('internal', 'http://localhost:80'),
      instance: expect.stringMatching(/^urn:request:[0-9a-f-]{36}$/),
    });
    await app.close();
  });
});

describe('the origin of a type', () => {
  it.each([
    ['http', 'api.example.com', 'http://api.example.com'],
    ['https', 'api.example.com:8443', 'https://api.example.com:8443'],
    ['http', '127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['http', '[::1]:3000', 'http://[::1]:3000'],
    // a Host that is not a host name gives no origin: the type is the relative reference
    ['http', undefined, ''],
    ['http', 'evil.example/phish?', ''],
    ['http', 'a b', ''],
    ['http', 'user@host', ''],
    ['http', '"><script>', ''],
  ])('%s with Host %s is %j', (protocol, host, origin) => {
    expect(requestOrigin({ protocol, host })).toBe(origin);
    expect(problemType('not-found', origin)).toBe(`${origin}/api/v1/problems/not-found`);
  });

  it('is the one each request was sent to, in the documents the error handler answers with', async () => {
    const app = Fastify({ genReqId: requestId });
    installErrorHandlers(app);
    const at = async (host: string): Promise<unknown> =>
      (await app.inject({ method: 'GET', url: '/nowhere', headers: { host } })).json<{ type: string }>().type;
    expect(await at('api.example.com')).toBe('http://api.example.com/api/v1/problems/not-found');
    expect(await at('bad host')).toBe('/api/v1/problems/not-found');
    await app.close();
  });
});

describe('request ids', () => {
  it.each([
    ['abc', true],
    ['A-Z.a_z:0-9', true],
    ['a'.repeat(128), true],
    ['a'.repeat(129), false],
    ['', false],
    ['two words', false],
    ['a,b', false],
    ['a/b', false],
    ['é', false],
    ['a\nb', false],
  ])('%j is one a client may give: %s', (id, kept) => {
    expect(isGivenRequestId(id)).toBe(kept);
  });

  it('are the header when it may be given, else a new UUIDv7 each', () => {
    const make = (headers: Record<string, string>): string =>
      requestId({ headers } as unknown as Parameters<typeof requestId>[0]);
    expect(make({ 'x-request-id': 'from-the-proxy' })).toBe('from-the-proxy');
    const made = [make({}), make({ 'x-request-id': '<bad>' }), make({})];
    for (const id of made) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(made).size).toBe(3);
  });
});

describe('the problem pages', () => {
  it('escape the text, and set code spans in <code>', () => {
    expect(html('a <b> & "c" `d`')).toBe('a &lt;b&gt; &amp; &quot;c&quot; <code>d</code>');
  });

  it.each(KINDS)('%s: its name, status, type, meaning and what to do', (kind) => {
    const page = problemPage(kind);
    expect(page).toContain(`<h1>${kind}</h1>`);
    expect(page).toContain(`<code>${problemType(kind)}</code>`);
    expect(page).toContain(html(PROBLEM_KINDS[kind].todo));
    expect(page).not.toMatch(/<script/);
  });

  it('are served under the route, and an unknown name is a 404 problem', async () => {
    const app = Fastify();
    installErrorHandlers(app);
    installProblemPages(app);
    const page = await app.inject({ method: 'GET', url: '/problems/rate-limited' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toBe(problemPage('rate-limited'));
    const json = await app.inject({
      method: 'GET',
      url: '/problems/rate-limited',
      headers: { accept: 'application/json' },
    });
    expect(json.json()).toEqual({
      type: problemType('rate-limited', 'http://localhost:80'),
      kind: 'rate-limited',
      ...PROBLEM_KINDS['rate-limited'],
    });
    const unknown = await app.inject({ method: 'GET', url: '/problems/constructor' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ type: problemType('not-found', 'http://localhost:80') });
    await app.close();
  });
});
