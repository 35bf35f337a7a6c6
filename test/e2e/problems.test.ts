import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, ROOT, type HttpResult, type RunningServer, serveGenerated } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/** SPEC §16 (a `type` per kind of problem, and its page) and §11's request ids, on a served project. */
let server: RunningServer;
let api: string;
let editor: ReturnType<typeof as>;
let admin: ReturnType<typeof as>;

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeAll(async () => {
  ({ server } = await serveGenerated(
    `${ROOT}/test/e2e/fixtures/problems.yaml`,
    'e2e-problems',
    { DATABASE_URL: await databaseUrl('problems'), JWT_SECRET: SECRET, RATE_LIMIT_MAX: '' },
    '/api/healthz',
  ));
  editor = as(await token('editor-1', { roles: ['editor'] }));
  admin = as(await token('admin-1', { roles: ['admin'] }));
  api = `${server.url}/api`;
});

afterAll(async () => {
  await server?.stop();
});

/** A problem document of `kind`, whose `instance` is the request id the answer's X-Request-Id says. */
function expectProblem(r: HttpResult, kind: string, status: number): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const id = r.headers.get('x-request-id');
  expect(id).toMatch(UUID_V7);
  expect(r.body).toMatchObject({ type: `${api}/problems/${kind}`, status, instance: `urn:request:${id}` });
}

async function newTag(slug: string): Promise<{ id: string }> {
  const created = await editor('POST', `${api}/tags`, { slug });
  expect(created.status).toBe(201);
  return created.body as { id: string };
}

describe('each problem has the type of its kind, and the request id as its instance', () => {
  it('404: an unknown id, and an unknown path', async () => {
    expectProblem(await http('GET', `${api}/tags/${randomUUID()}`), 'not-found', 404);
    expectProblem(await http('GET', `${api}/nowhere`), 'not-found', 404);
  });

  it('400: a body that breaks the schema (validation), and one that is not JSON (malformed)', async () => {
    expectProblem(await editor('POST', `${api}/tags`, {}), 'validation', 400);
    expectProblem(await editor('POST', `${api}/tags`, '{"slug":'), 'malformed', 400);
  });

  it('401 without a token, 403 with one the rule does not admit', async () => {
    expectProblem(await http('POST', `${api}/tags`, { slug: 'x' }), 'unauthorized', 401);
    const tag = await newTag('forbidden');
    expectProblem(await editor('DELETE', `${api}/tags/${tag.id}`), 'forbidden', 403);
  });

  it('405: a known path, another method', async () => {
    expectProblem(await editor('PUT', `${api}/tags`, { slug: 'x' }), 'method-not-allowed', 405);
  });

  it('409: a unique value taken, a reference to no record, an action whose `when` fails', async () => {
    await newTag('taken');
    expectProblem(await editor('POST', `${api}/tags`, { slug: 'taken' }), 'conflict-unique', 409);
    expectProblem(await http('POST', `${api}/notes`, { tagId: randomUUID() }), 'conflict-reference', 409);
    const tag = await newTag('closing');
    expect((await editor('POST', `${api}/tags/${tag.id}/close`)).status).toBe(200);
    expectProblem(await editor('POST', `${api}/tags/${tag.id}/close`), 'conflict-state', 409);
  });

  it('412: a stale If-Match', async () => {
    const tag = await newTag('stale');
    const r = await editor('PATCH', `${api}/tags/${tag.id}`, { slug: 'fresh' }, { 'if-match': '"99"' });
    expectProblem(r, 'precondition-failed', 412);
  });

  it('413 over the body limit, 415 a body that is not JSON', async () => {
    expectProblem(await editor('POST', `${api}/tags`, { slug: 'x'.repeat(2000) }), 'payload-too-large', 413);
    const r = await editor('POST', `${api}/tags`, 'slug=x', { 'content-type': 'text/plain' });
    expectProblem(r, 'unsupported-media-type', 415);
  });

  it('422: an Idempotency-Key used again with another body', async () => {
    const key = { 'idempotency-key': randomUUID() };
    expect((await editor('POST', `${api}/tags`, { slug: 'once' }, key)).status).toBe(201);
    expectProblem(await editor('POST', `${api}/tags`, { slug: 'twice' }, key), 'idempotency-mismatch', 422);
  });

  it('429: over the rate limit', async () => {
    const flood = as(await token('flood'));
    let last: HttpResult | undefined;
    // the definition allows 40 a minute: the 41st is refused (bounded at 50)
    for (let i = 0; i < 50 && last?.status !== 429; i += 1) last = await flood('GET', `${api}/tags`);
    expectProblem(last as HttpResult, 'rate-limited', 429);
    expect(last?.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('the problem pages', () => {
  it('GET /problems/not-found: a page that says what it means and what to do', async () => {
    const r = await fetch(`${api}/problems/not-found`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await r.text();
    expect(page).toContain('<h1>not-found</h1>');
    expect(page).toContain('What to do');
  });

  it('answers JSON to a client that asks for it, and 404 for a kind that does not exist', async () => {
    const r = await http('GET', `${api}/problems/conflict-unique`, undefined, { accept: 'application/json' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ type: `${api}/problems/conflict-unique`, kind: 'conflict-unique', status: 409 });
    expectProblem(await http('GET', `${api}/problems/no-such-kind`), 'not-found', 404);
    expectProblem(await http('GET', `${api}/problems/__proto__`), 'not-found', 404);
  });

  it("the OpenAPI document's Problem schema lists every type the server answers with", async () => {
    const document = (await http('GET', `${api}/openapi.json`)).body as {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; enum?: string[] }> };
    };
    const { Problem, ProblemType } = document.components.schemas;
    expect(Problem?.properties?.type).toEqual({ $ref: '#/components/schemas/ProblemType' });
    expect(Problem?.properties?.instance).toMatchObject({ type: 'string' });
    for (const kind of ['not-found', 'validation', 'conflict-unique', 'rate-limited', 'payload-too-large']) {
      // the origin is the request's: the schema holds the path
      expect(`${api}/problems/${kind}`).toMatch(new RegExp(String((ProblemType as { pattern?: string }).pattern)));
    }
  });
});

describe('X-Request-Id', () => {
  it('a well-formed one comes back as it was sent, and is the problem’s instance', async () => {
    const id = 'edge-7f3a.b_c:1';
    const r = await http('GET', `${api}/tags/${randomUUID()}`, undefined, { 'x-request-id': id });
    expect(r.headers.get('x-request-id')).toBe(id);
    expect(r.body).toMatchObject({ instance: `urn:request:${id}` });
    const ok = await http('GET', `${api}/tags`, undefined, { 'x-request-id': 'a'.repeat(128) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('a'.repeat(128));
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['a space', 'two words'],
    ['markup', '<script>'],
    ['a slash', 'a/b'],
  ])('one with %s is replaced by a UUIDv7', async (_, id) => {
    const r = await http('GET', `${api}/tags/${randomUUID()}`, undefined, { 'x-request-id': id });
    const made = r.headers.get('x-request-id');
    expect(made).toMatch(UUID_V7);
    expect(r.body).toMatchObject({ instance: `urn:request:${made}` });
  });

  it('every answer has one, each its own', async () => {
    const [a, b] = await Promise.all([admin('GET', `${api}/tags`), http('GET', `${api}/healthz`)]);
    expect(a.headers.get('x-request-id')).toMatch(UUID_V7);
    expect(b.headers.get('x-request-id')).toMatch(UUID_V7);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});
