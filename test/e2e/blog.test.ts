import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, ROOT, type RunningServer, serveGenerated } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl, runSql } from '../helpers/database.js';

/** The SPEC's blog, generated, type-checked, built and served on SQLite; every route over real HTTP. */
let server: RunningServer;
let api: string;
let dir: string;
/** the server's DATABASE_URL */
let url: string;
/** these tests exercise the HTTP contract as the administrator; access rules have their own suite (guards.test.ts) */
let admin: ReturnType<typeof as>;

beforeAll(async () => {
  ({ dir, server } = await serveGenerated(
    `${ROOT}/examples/blog.yaml`,
    'e2e-blog',
    { DATABASE_URL: (url = await databaseUrl('blog', 'sqlite:./data/e2e.db')), JWT_SECRET: SECRET },
    '/api/v1/healthz',
  ));
  admin = as(await token('admin-1', { roles: ['admin'] }));
  api = `${server.url}/api/v1`;
});

afterAll(async () => {
  await server?.stop();
});

type Rec = Record<string, unknown>;
const problem = (r: { headers: Headers; body: unknown }) => {
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return r.body as {
    type: string;
    title: string;
    status: number;
    detail: string;
    errors?: { path: string; message: string }[];
  };
};

async function newUser(email: string): Promise<Rec> {
  const created = await admin('POST', `${api}/users`, { email, name: 'Ada' });
  expect(created.status).toBe(201);
  return created.body as Rec;
}

describe('health and unknown paths', () => {
  it('GET /healthz checks the database', async () => {
    const r = await admin('GET', `${api}/healthz`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('routes sit under the prefix only', async () => {
    expect((await admin('GET', `${server.url}/posts`)).status).toBe(404);
    const r = await admin('GET', `${api}/nowhere`);
    expect(r.status).toBe(404);
    expect(problem(r).status).toBe(404);
  });

  it('sends no CORS header without `cors` in the definition (an OPTIONS is a 405 naming the methods)', async () => {
    const origin = { origin: 'https://app.example.com' };
    const read = await http('GET', `${api}/posts`, undefined, origin);
    const preflight = await http('OPTIONS', `${api}/posts`, undefined, {
      ...origin,
      'access-control-request-method': 'POST',
    });
    for (const r of [read, preflight])
      expect([...r.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('POST /posts', () => {
  it('creates with defaults, a Location, an ETag and a UUIDv7 id', async () => {
    const author = await newUser('author1@example.com');
    const r = await admin('POST', `${api}/posts`, { title: 'Hello', authorId: author.id, meta: { tags: ['a'] } });
    expect(r.status).toBe(201);
    const post = r.body as Rec;
    expect(post).toMatchObject({
      title: 'Hello',
      status: 'draft',
      views: 0,
      featured: false,
      rating: null,
      body: null,
    });
    expect(post.meta).toEqual({ tags: ['a'] });
    expect(post.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(post.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.headers.get('location')).toBe(`/api/v1/posts/${post.id}`);
    expect(r.headers.get('etag')).toBe('"1"');
  });

  it('lists every broken field of a body at once', async () => {
    const r = await admin('POST', `${api}/posts`, {
      title: '',
      views: -1,
      rating: 9,
      authorId: 'not-a-uuid',
      extra: 1,
    });
    expect(r.status).toBe(400);
    const paths = problem(r)
      .errors?.map((e) => e.path)
      .sort();
    expect(paths).toEqual(['/authorId', '/extra', '/rating', '/title', '/views']);
  });

  it('names a missing required field', async () => {
    const r = await admin('POST', `${api}/posts`, { body: 'no title' });
    expect(r.status).toBe(400);
    expect(problem(r).errors).toContainEqual({ path: '/title', message: 'is required' });
  });

  it('refuses a read-only field with a 400 that says so', async () => {
    const author = await newUser('author2@example.com');
    const r = await admin('POST', `${api}/posts`, { title: 'x', authorId: author.id, status: 'published' });
    expect(r.status).toBe(400);
    expect(problem(r).errors).toEqual([{ path: '/status', message: 'is read-only' }]);
    const id = await admin('POST', `${api}/posts`, { title: 'x', authorId: author.id, id: 'mine' });
    expect(problem(id).errors).toEqual([{ path: '/id', message: 'is read-only' }]);
  });

  it('answers malformed JSON with a 400 problem', async () => {
    const r = await admin('POST', `${api}/posts`, '{"title": ');
    expect(r.status).toBe(400);
    expect(problem(r).detail).toMatch(/JSON/);
  });

  it('answers a body that is not JSON with a 415', async () => {
    const r = await admin('POST', `${api}/posts`, 'title=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(415);
    problem(r);
  });

  it('refuses numbers JSON can write but no column can hold, and json nested too deep, with 400s', async () => {
    const author = await newUser('numbers@example.com');
    const infinite = await admin('POST', `${api}/posts`, { title: 'x', authorId: author.id, views: 1e400 });
    expect(infinite.status).toBe(400);
    const unsafe = await admin('POST', `${api}/posts`, { title: 'x', authorId: author.id, views: 9007199254740993 });
    expect(unsafe.status).toBe(400);
    const rating = await admin('POST', `${api}/posts`, '{"title":"x","authorId":"' + author.id + '","rating":-1e400}');
    expect(rating.status).toBe(400);
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const nested = await admin('POST', `${api}/posts`, `{"title":"x","authorId":"${author.id}","meta":${deep}}`);
    expect(nested.status).toBe(400);
    expect(problem(nested).errors?.[0]?.path).toBe('/meta');
    expect((await admin('GET', `${api}/posts?limit=100`)).status).toBe(200);
  });

  it('takes application/merge-patch+json for PATCH and refuses text/plain with a 415', async () => {
    const author = await newUser('types@example.com');
    const post = (await admin('POST', `${api}/posts`, { title: 'typed', authorId: author.id })).body as Rec;
    const merge = await admin('PATCH', `${api}/posts/${post.id}`, '{"title":"merged"}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(merge.status).toBe(200);
    expect((merge.body as Rec).title).toBe('merged');
    const text = await admin('POST', `${api}/posts`, '{"title":"x"}', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
  });

  it('answers a body over limits.bodySize (1mb) with a 413', async () => {
    const r = await admin('POST', `${api}/posts`, { title: 'big', body: 'x'.repeat(1_100_000) });
    expect(r.status).toBe(413);
    // the limit is said (found by a newcomer)
    expect(problem(r).detail).toBe('the body is over the 1048576 bytes this server takes');
  });

  it('answers a reference to a missing record with a 409', async () => {
    const r = await admin('POST', `${api}/posts`, { title: 'x', authorId: '01900000-0000-7000-8000-000000000000' });
    expect(r.status).toBe(409);
    expect(problem(r).detail).toBe('no user has the id sent as authorId ("01900000-0000-7000-8000-000000000000")');
    expect(problem(r).errors).toEqual([{ path: '/authorId', message: 'must be the id of an existing user' }]);
  });

  it('answers a create whose owner field, left out, took a subject no user has with a 409 that says so', async () => {
    // found by a newcomer: it named the field as if it had been sent
    const r = await admin('POST', `${api}/posts`, { title: 'x' });
    expect(r.status).toBe(409);
    expect(problem(r).detail).toBe(
      'authorId was left out, so it took your token\'s subject ("admin-1"), and no user has that id: authorId refers to a user by its id, so a caller\'s token subject must be the id of their own user (staff and the administrator may send authorId instead)',
    );
    expect(problem(r).errors).toEqual([{ path: '/authorId', message: 'must be the id of an existing user' }]);
  });

  it('filters a unique email as its uniqueness compares it: the case of ASCII letters aside (found by a newcomer)', async () => {
    const user = await newUser('Mixed.Case@Example.com');
    const ids = async (query: string): Promise<unknown[]> => {
      const r = await admin('GET', `${api}/users?${query}&limit=100`);
      expect(r.status, r.text).toBe(200);
      return (r.body as { items: Rec[] }).items.map((u) => u.id);
    };
    expect(await ids('email=mixed.case@example.com')).toEqual([user.id]);
    expect(await ids('email[in]=nobody@example.com,MIXED.CASE@EXAMPLE.COM')).toEqual([user.id]);
    expect(await ids('email[ne]=mixed.case@EXAMPLE.com')).not.toContain(user.id);
    expect(await ids('email=mixed.case@example.org')).toEqual([]);
  });

  it('answers a taken unique value with a 409', async () => {
    await newUser('taken@example.com');
    const r = await admin('POST', `${api}/users`, { email: 'taken@example.com' });
    expect(r.status).toBe(409);
    expect(problem(r).detail).toMatch(/email/);
    expect(problem(r).type).toBe(`${api}/problems/conflict-unique`);
    // no word of the database's (the type's own `unique` aside)
    expect(JSON.stringify({ ...problem(r), type: undefined })).not.toMatch(/UNIQUE|SQL|constraint/i);
    // emails are unique whatever the case of their ASCII letters
    expect((await admin('POST', `${api}/users`, { email: 'TAKEN@Example.COM' })).status).toBe(409);
  });

  it('normalises datetimes to UTC', async () => {
    // publishedAt is read-only in the blog; exercised through PATCH of a datetime-free field instead
    const author = await newUser('utc@example.com');
    const r = await admin('POST', `${api}/posts`, { title: 't', authorId: author.id, rating: 4.5 });
    expect((r.body as Rec).rating).toBe(4.5);
  });
});

describe('GET /posts/{id}', () => {
  it('reads a record with an ETag and answers If-None-Match with a 304', async () => {
    const author = await newUser('reader@example.com');
    const post = (await admin('POST', `${api}/posts`, { title: 'Read me', authorId: author.id })).body as Rec;
    const r = await admin('GET', `${api}/posts/${post.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(post);
    const etag = r.headers.get('etag') ?? '';
    expect((await admin('GET', `${api}/posts/${post.id}`, undefined, { 'if-none-match': etag })).status).toBe(304);
    expect((await admin('GET', `${api}/posts/${post.id}`, undefined, { 'if-none-match': '"999"' })).status).toBe(200);
  });

  it('answers an unknown or impossible id with a 404 problem', async () => {
    const unknown = await admin('GET', `${api}/posts/01900000-0000-7000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    expect(problem(unknown).title).toBe('Not Found');
    expect((await admin('GET', `${api}/posts/not-an-id`)).status).toBe(404);
  });
});

describe('GET /posts', () => {
  it('pages with an opaque cursor until nextCursor is null, each record once', async () => {
    const author = await newUser('pager@example.com');
    for (let i = 0; i < 7; i += 1) await admin('POST', `${api}/posts`, { title: `page ${i}`, authorId: author.id });
    const all = ((await admin('GET', `${api}/posts?limit=100`)).body as { items: Rec[] }).items;
    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = (await admin('GET', `${api}/posts?limit=3${query}`)).body as {
        items: Rec[];
        nextCursor: string | null;
      };
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 100);
    expect(seen).toEqual(all.map((p) => p.id));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('uses the default page size', async () => {
    const page = (await admin('GET', `${api}/posts`)).body as { items: Rec[] };
    expect(page.items.length).toBeLessThanOrEqual(20);
  });

  it('answers a limit over the maximum, an unknown parameter and a forged cursor with 400s', async () => {
    const over = await admin('GET', `${api}/posts?limit=101`);
    expect(over.status).toBe(400);
    expect(problem(over).errors?.[0]?.path).toBe('/limit');
    const unknown = await admin('GET', `${api}/posts?colour=red`);
    expect(unknown.status).toBe(400);
    expect(problem(unknown).errors).toEqual([{ path: '/colour', message: 'is not a known parameter' }]);
    const forged = await admin('GET', `${api}/posts?cursor=${Buffer.from('{"x":1}').toString('base64url')}`);
    expect(forged.status).toBe(400);
  });
});

describe('PUT and PATCH /posts/{id}', () => {
  async function freshPost(): Promise<{ post: Rec; author: Rec }> {
    const author = await newUser(`w${Math.random().toString(36).slice(2)}@example.com`);
    const body = {
      title: 'Draft',
      body: 'text',
      views: 5,
      rating: 3,
      featured: true,
      authorId: author.id,
      meta: { a: 1, b: { c: 2 } },
    };
    const post = (await admin('POST', `${api}/posts`, body)).body as Rec;
    return { post, author };
  }

  it('PUT replaces every writable field; omitted ones return to their default or null', async () => {
    const { post, author } = await freshPost();
    const r = await admin('PUT', `${api}/posts/${post.id}`, { title: 'Replaced', authorId: author.id });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: post.id,
      title: 'Replaced',
      body: null,
      views: 0,
      rating: null,
      featured: false,
      meta: null,
      status: 'draft',
    });
    expect(r.headers.get('etag')).toBe('"2"');
    expect((r.body as Rec).createdAt).toBe(post.createdAt);
  });

  it('PUT needs the required fields (the owner field keeps its value when left out)', async () => {
    const { post, author } = await freshPost();
    const r = await admin('PUT', `${api}/posts/${post.id}`, { body: 'no title' });
    expect(r.status).toBe(400);
    expect(problem(r).errors?.map((e) => e.path)).toEqual(['/title']);
    const kept = await admin('PUT', `${api}/posts/${post.id}`, { title: 'Kept' });
    expect(kept.body).toMatchObject({ title: 'Kept', authorId: author.id });
  });

  it('PATCH is a JSON Merge Patch: absent unchanged, null clears, json merged', async () => {
    const { post } = await freshPost();
    const r = await admin('PATCH', `${api}/posts/${post.id}`, {
      title: 'Patched',
      rating: null,
      meta: { b: { c: null, d: 3 } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'Patched', body: 'text', views: 5, rating: null, featured: true });
    expect((r.body as Rec).meta).toEqual({ a: 1, b: { d: 3 } });
  });

  it('PATCH null removes an optional value as PUT does when the field is left out: its default, else null', async () => {
    const { post } = await freshPost();
    // views (default 0), featured (default false), body (no default), all optional and not nullable
    const patched = await admin('PATCH', `${api}/posts/${post.id}`, { views: null, featured: null, body: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ views: 0, featured: false, body: null });
    const { post: other } = await freshPost();
    const put = await admin('PUT', `${api}/posts/${other.id}`, { title: other.title, authorId: other.authorId });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ views: 0, featured: false, body: null });
  });

  it('PATCH refuses null for a required field, and read-only fields', async () => {
    const { post } = await freshPost();
    const nulled = await admin('PATCH', `${api}/posts/${post.id}`, { title: null });
    expect(nulled.status).toBe(400);
    expect(problem(nulled).errors?.[0]?.path).toBe('/title');
    const readOnly = await admin('PATCH', `${api}/posts/${post.id}`, { publishedAt: '2026-01-01T00:00:00Z' });
    expect(problem(readOnly).errors).toEqual([{ path: '/publishedAt', message: 'is read-only' }]);
  });

  it('PUT and PATCH of an unknown id are 404s', async () => {
    const { author } = await freshPost();
    const missing = `${api}/posts/01900000-0000-7000-8000-000000000000`;
    expect((await admin('PUT', missing, { title: 'x', authorId: author.id })).status).toBe(404);
    expect((await admin('PATCH', missing, { title: 'x' })).status).toBe(404);
  });
});

describe('If-Match', () => {
  async function draft(): Promise<{ post: Rec; etag: string }> {
    const author = await newUser(`m${Math.random().toString(36).slice(2)}@example.com`);
    const created = await admin('POST', `${api}/posts`, { title: 'Versioned', authorId: author.id });
    return { post: created.body as Rec, etag: created.headers.get('etag') ?? '' };
  }

  it('PUT and PATCH with a stale ETag answer 412 and change nothing; with the current one they apply', async () => {
    const { post, etag } = await draft();
    const url = `${api}/posts/${post.id}`;
    const first = await admin('PATCH', url, { title: 'One' }, { 'if-match': etag });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe('"2"');
    const stale = await admin('PATCH', url, { title: 'Two' }, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(problem(stale).title).toBe('Precondition Failed');
    // a version no record can have is a 412 too, on every database
    expect((await admin('PATCH', url, { title: 'Two' }, { 'if-match': '"99999999999999999999"' })).status).toBe(412);
    const staleput = await admin('PUT', url, { title: 'Two', authorId: post.authorId }, { 'if-match': etag });
    expect(staleput.status).toBe(412);
    expect(((await admin('GET', url)).body as Rec).title).toBe('One');
    expect((await admin('PUT', url, { title: 'Three' }, { 'if-match': '"7", "2"' })).status).toBe(200);
    expect((await admin('PATCH', url, { title: 'Four' }, { 'if-match': '*' })).status).toBe(200);
    expect((await admin('PATCH', url, { title: 'Weak' }, { 'if-match': 'W/"4"' })).status).toBe(412);
    // not an ETag at all: a client bug, said as such, not "the record changed"
    for (const garbage of ['garbage', '4', '"4', '"4", x']) {
      const r = await admin('PATCH', url, { title: 'Garbage' }, { 'if-match': garbage });
      expect(r.status, garbage).toBe(400);
      expect(problem(r).detail).toContain('If-Match must be');
    }
  });

  it('of two concurrent updates from one version, one wins and the other gets 412', async () => {
    const { post, etag } = await draft();
    const url = `${api}/posts/${post.id}`;
    const results = await Promise.all(
      ['A', 'B', 'C', 'D'].map((title) => admin('PATCH', url, { title }, { 'if-match': etag })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412]);
  });

  it('DELETE and item actions honour it too; an unknown id is still a 404', async () => {
    const { post, etag } = await draft();
    const url = `${api}/posts/${post.id}`;
    await admin('PATCH', url, { views: 1 });
    expect((await admin('POST', `${url}/publish`, undefined, { 'if-match': etag })).status).toBe(412);
    expect((await admin('DELETE', url, undefined, { 'if-match': etag })).status).toBe(412);
    expect((await admin('GET', url)).status).toBe(200);
    expect((await admin('POST', `${url}/publish`, undefined, { 'if-match': '"2"' })).status).toBe(200);
    expect((await admin('DELETE', url, undefined, { 'if-match': '"3"' })).status).toBe(204);
    expect((await admin('DELETE', url, undefined, { 'if-match': '"3"' })).status).toBe(404);
  });
});

describe('Idempotency-Key', () => {
  const count = async (): Promise<number> =>
    ((await admin('GET', `${api}/posts?limit=100`)).body as { items: Rec[] }).items.filter((p) =>
      String(p.title).startsWith('Once'),
    ).length;

  it('replays the first response to a repeated POST and acts once; another body with the key is a 422', async () => {
    const author = await newUser('once@example.com');
    const key = { 'idempotency-key': 'create-once-1' };
    const before = await count();
    const first = await admin('POST', `${api}/posts`, { title: 'Once', authorId: author.id }, key);
    const again = await admin('POST', `${api}/posts`, { title: 'Once', authorId: author.id }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await count()).toBe(before + 1);
    const other = await admin('POST', `${api}/posts`, { title: 'Once more', authorId: author.id }, key);
    expect(other.status).toBe(422);
    expect(problem(other).title).toBe('Unprocessable Content');
  });

  it('acts once for concurrent requests with one key, and keys are per caller', async () => {
    const author = await newUser('concurrent@example.com');
    const key = { 'idempotency-key': 'create-once-2' };
    const before = await count();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        admin('POST', `${api}/posts`, { title: 'Once at a time', authorId: author.id }, key),
      ),
    );
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(results.map((r) => (r.body as Rec).id)).size).toBe(1);
    expect(await count()).toBe(before + 1);
    const otherAdmin = as(await token('admin-2', { roles: ['admin'] }));
    const theirs = await otherAdmin('POST', `${api}/posts`, { title: 'Once at a time', authorId: author.id }, key);
    expect(theirs.status).toBe(201);
    expect((theirs.body as Rec).id).not.toBe((results[0]?.body as Rec).id);
  });

  it('replays an action: a repeated publish answers what the first did, not a 409', async () => {
    const author = await newUser('publish-once@example.com');
    const post = (await admin('POST', `${api}/posts`, { title: 'Publish once', authorId: author.id })).body as Rec;
    const key = { 'idempotency-key': `publish-${post.id}` };
    const first = await admin('POST', `${api}/posts/${post.id}/publish`, undefined, key);
    const again = await admin('POST', `${api}/posts/${post.id}/publish`, undefined, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await admin('POST', `${api}/posts/${post.id}/publish`)).status).toBe(409);
  });

  it('an action without input takes no body, or an empty one: anything else is a 400 that says so', async () => {
    const author = await newUser('no-body@example.com');
    const post = (await admin('POST', `${api}/posts`, { title: 'No body', authorId: author.id })).body as Rec;
    const refused = await admin('POST', `${api}/posts/${post.id}/publish`, { status: 'archived' });
    expect(refused.status).toBe(400);
    expect(problem(refused).errors).toEqual([{ path: '/', message: 'this action takes no body: send none, or {}' }]);
    expect((await admin('POST', `${api}/posts/${post.id}/publish`, {})).status).toBe(200);
  });
});

describe('DELETE', () => {
  it('deletes with a 204, then the record is gone', async () => {
    const author = await newUser('deleter@example.com');
    const post = (await admin('POST', `${api}/posts`, { title: 'bye', authorId: author.id })).body as Rec;
    const r = await admin('DELETE', `${api}/posts/${post.id}`);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await admin('GET', `${api}/posts/${post.id}`)).status).toBe(404);
    expect((await admin('DELETE', `${api}/posts/${post.id}`)).status).toBe(404);
  });

  it('cascades to the posts of a deleted user (onDelete: cascade)', async () => {
    const author = await newUser('cascade@example.com');
    const post = (await admin('POST', `${api}/posts`, { title: 'child', authorId: author.id })).body as Rec;
    expect((await admin('DELETE', `${api}/users/${author.id}`)).status).toBe(204);
    expect((await admin('GET', `${api}/posts/${post.id}`)).status).toBe(404);
  });
});

describe('users', () => {
  it('validates formats and never returns what it was not asked to', async () => {
    const bad = await admin('POST', `${api}/users`, { email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(problem(bad).errors?.[0]?.path).toBe('/email');
  });
});

describe('a bug', () => {
  it('answers 500 with a generic problem document: no stack, no SQL, no path', async () => {
    const author = await newUser('corrupt@example.com');
    const post = (await admin('POST', `${api}/posts`, { title: 'soon corrupt', authorId: author.id })).body as Rec;
    // a row no API call can write: an enum value outside the definition
    await runSql(url, dir, 'UPDATE posts SET status = ? WHERE id = ?', ['bogus', post.id]);
    const r = await admin('GET', `${api}/posts/${post.id}`);
    expect(r.status).toBe(500);
    expect(problem(r)).toEqual({
      type: `${api}/problems/internal`,
      title: 'Internal Server Error',
      status: 500,
      detail: 'the server failed to answer this request; it has been logged',
      instance: `urn:request:${r.headers.get('x-request-id')}`,
    });
    expect(r.text).not.toMatch(/at |\.ts|\.js|SELECT|bogus/);
  });
});
