import { request } from 'node:http';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, ROOT, type RunningServer, serveGenerated, startServer, startToFailure } from '../helpers/project.js';
import { as, keyPair, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

const run = promisify(execFile);

/** Authentication, owner scoping and actions of the blog, over real HTTP. */
let dir: string;
let server: RunningServer;
let api: string;
let admin: ReturnType<typeof as>;

beforeAll(async () => {
  ({ dir, server } = await serveGenerated(
    `${ROOT}/examples/blog.yaml`,
    'e2e-auth',
    { DATABASE_URL: await databaseUrl('auth', 'sqlite:./data/auth.db'), JWT_SECRET: SECRET },
    '/api/v1/healthz',
  ));
  api = `${server.url}/api/v1`;
  admin = as(await token('root', { roles: ['admin'] }));
});

afterAll(async () => {
  await server?.stop();
});

type Rec = Record<string, unknown>;
let n = 0;

async function user(): Promise<{ id: string; as: ReturnType<typeof as> }> {
  n += 1;
  const created = await admin('POST', `${api}/users`, { email: `u${n}@example.com`, name: `User ${n}` });
  expect(created.status).toBe(201);
  const id = (created.body as Rec).id as string;
  return { id, as: as(await token(id)) };
}

describe('401 and 403', () => {
  it('asks for a token with WWW-Authenticate: Bearer, and says invalid_token when one was refused', async () => {
    const none = await http('POST', `${api}/posts`, { title: 'x' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const bad = await http('POST', `${api}/posts`, { title: 'x' }, { authorization: 'Bearer not.a.token' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const malformed = await http('GET', `${api}/users`, undefined, { authorization: 'Basic abc' });
    expect(malformed.status).toBe(401);
  });

  it('checks access before it reads the body: no token is a 401 even for a broken body', async () => {
    const broken = await http('POST', `${api}/posts`, '{"bogus": ');
    expect(broken.status).toBe(401);
    const user = as(await token('nobody'));
    expect((await user('POST', `${api}/users`, { bogus: 1 })).status).toBe(403);
    expect((await http('GET', `${api}/users/not-a-uuid`)).status).toBe(401);
  });

  it('refuses a token without an expiry; on a public route a refused token leaves the caller anonymous', async () => {
    const { SignJWT } = await import('jose');
    const forever = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('root')
      .sign(new TextEncoder().encode(SECRET));
    expect((await http('GET', `${api}/users`, undefined, { authorization: `Bearer ${forever}` })).status).toBe(401);
    const publicList = await http('GET', `${api}/posts`, undefined, { authorization: `Bearer ${forever}` });
    expect(publicList.status).toBe(200);
  });

  it('remembers a verified token only until it expires', async () => {
    const shortLived = await token('root', { roles: ['admin'], expires: Math.floor(Date.now() / 1000) + 2 });
    expect((await as(shortLived)('GET', `${api}/users`)).status).toBe(200);
    expect((await as(shortLived)('GET', `${api}/users`)).status).toBe(200);
    await new Promise((wait) => setTimeout(wait, 2_600));
    expect((await as(shortLived)('GET', `${api}/users`)).status).toBe(401);
  });

  it('answers a valid token that the rule does not admit with a 403 problem', async () => {
    const u = await user();
    const r = await u.as('GET', `${api}/users`);
    expect(r.status).toBe(403);
    expect((r.body as Rec).title).toBe('Forbidden');
  });

  it('refuses roles that are not a list of strings', async () => {
    const { SignJWT } = await import('jose');
    const odd = await new SignJWT({ roles: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(SECRET));
    expect((await http('GET', `${api}/users`, undefined, { authorization: `Bearer ${odd}` })).status).toBe(401);
  });
});

describe('owner', () => {
  it('defaults the owner field to the caller on create, and refuses to create for someone else', async () => {
    const alice = await user();
    const bob = await user();
    const mine = await alice.as('POST', `${api}/posts`, { title: 'Mine' });
    expect(mine.status).toBe(201);
    expect((mine.body as Rec).authorId).toBe(alice.id);
    const theirs = await alice.as('POST', `${api}/posts`, { title: 'Theirs', authorId: bob.id });
    expect(theirs.status).toBe(403);
    const byAdmin = await admin('POST', `${api}/posts`, { title: 'Given', authorId: bob.id });
    expect((byAdmin.body as Rec).authorId).toBe(bob.id);
  });

  it('lets staff — a caller admitted by a role the rule names — create a record for someone else', async () => {
    const bob = await user();
    // the editor is a user too: left out, the owner field is the caller, as for anyone
    const editor = await user();
    const asEditor = as(await token(editor.id, { roles: ['editor'] }));
    const forBob = await asEditor('POST', `${api}/posts`, { title: 'For Bob', authorId: bob.id });
    expect(forBob.status).toBe(201);
    expect((forBob.body as Rec).authorId).toBe(bob.id);
    expect(((await asEditor('POST', `${api}/posts`, { title: 'Own' })).body as Rec).authorId).toBe(editor.id);
    // the same user without the role is admitted by `authenticated` only: no giving away
    const plain = await editor.as('POST', `${api}/posts`, { title: 'For Bob', authorId: bob.id });
    expect(plain.status).toBe(403);
    expect((plain.body as { detail: string }).detail).toBe(
      "only an administrator, or a role this operation's rule names, may make someone else the authorId of a record",
    );
  });

  it("lets an owner change their record, hides another's (404), and keeps them from giving it away (403)", async () => {
    const alice = await user();
    const bob = await user();
    const post = (await alice.as('POST', `${api}/posts`, { title: 'Draft' })).body as Rec;
    expect((await alice.as('PATCH', `${api}/posts/${post.id}`, { title: 'Edited' })).status).toBe(200);
    expect((await bob.as('PATCH', `${api}/posts/${post.id}`, { title: 'Hijacked' })).status).toBe(404);
    expect((await bob.as('PUT', `${api}/posts/${post.id}`, { title: 'Hijacked' })).status).toBe(404);
    expect((await alice.as('PATCH', `${api}/posts/${post.id}`, { authorId: bob.id })).status).toBe(403);
    const after = (await admin('GET', `${api}/posts/${post.id}`)).body as Rec;
    expect(after).toMatchObject({ title: 'Edited', authorId: alice.id });
  });

  it('owner: id lets a user change their own user record and no other (owner-scoped listing: tasks.test.ts)', async () => {
    const carol = await user();
    expect((await carol.as('PATCH', `${api}/users/${carol.id}`, { name: 'Carol' })).status).toBe(200);
    const other = await user();
    expect((await carol.as('PATCH', `${api}/users/${other.id}`, { name: 'Nope' })).status).toBe(404);
  });
});

describe('actions', () => {
  it('publish: an editor publishes a draft once, sets publishedAt to now; a second call is a 409 naming the condition', async () => {
    const alice = await user();
    const editor = as(await token('ed', { roles: ['editor'] }));
    const post = (await alice.as('POST', `${api}/posts`, { title: 'News' })).body as Rec;
    const before = Date.now();
    const published = await editor('POST', `${api}/posts/${post.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ id: post.id, status: 'published' });
    const at = Date.parse((published.body as Rec).publishedAt as string);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    const again = await editor('POST', `${api}/posts/${post.id}/publish`);
    expect(again.status).toBe(409);
    expect((again.body as Rec).detail).toBe('publish needs status to be "draft"; status is "published"');
    expect((await editor('POST', `${api}/posts/01900000-0000-7000-8000-000000000000/publish`)).status).toBe(404);
  });

  it('publish: of 20 concurrent calls exactly one succeeds', async () => {
    const alice = await user();
    const post = (await alice.as('POST', `${api}/posts`, { title: 'Race' })).body as Rec;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => admin('POST', `${api}/posts/${post.id}/publish`)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });

  it('import: a handler not written yet answers 501; its input is validated first', async () => {
    const stub = await admin('POST', `${api}/posts/import`, { items: [] });
    expect(stub.status).toBe(501);
    expect((stub.body as Rec).detail).toMatch(/src\/handlers/);
    const invalid = await admin('POST', `${api}/posts/import`, { nope: 1 });
    expect(invalid.status).toBe(400);
    const wrongMethod = await admin('GET', `${api}/posts/import`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    const put = await admin('PUT', `${api}/posts/${'01900000-0000-7000-8000-000000000000'}/publish`);
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST');
  });
});

describe('rate limit (blog: 300 a minute)', () => {
  it('answers 429 with Retry-After past the limit, per IP for anonymous callers and per subject for valid tokens', async () => {
    const limited = await startServer(
      dir,
      { DATABASE_URL: await databaseUrl('auth-limited'), JWT_SECRET: SECRET, RATE_LIMIT_MAX: '' },
      '/api/v1/healthz',
    );
    try {
      const base = `${limited.url}/api/v1`;
      const alice = as(await token('alice-rate'));
      const someone = `${base}/users/01900000-0000-7000-8000-000000000000`;
      expect((await alice('GET', someone)).status).toBe(404);
      const statuses: number[] = [];
      for (let i = 0; i < 305; i += 1) statuses.push((await http('GET', `${base}/posts?limit=1`)).status);
      // alice's request counted in her own bucket, not the address's
      expect(statuses.filter((s) => s === 200)).toHaveLength(300);
      const over = await http('GET', `${base}/posts`);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(problem429(over.body)).toBe('Too Many Requests');
      // the detail names the window as the definition gives it, not the time left
      expect((over.body as { detail: string }).detail).toBe('more than 300 requests per minute: try again later');
      expect((await alice('GET', someone)).status).toBe(404);
      // a token never seen before gets its own bucket from its first request, on a public route too
      const bob = as(await token('bob-rate'));
      expect((await bob('GET', `${base}/posts?limit=1`)).status).toBe(200);
      expect((await bob('GET', someone)).status).toBe(404);
      // a token that is not valid counts against the address, which is exhausted
      const forged = as(await token('mallory-rate', { secret: 'another-secret-of-32-bytes-or-more!!' }));
      expect((await forged('GET', `${base}/posts?limit=1`)).status).toBe(429);
      expect((await http('GET', `${base}/healthz`)).status).toBe(200);
      // the docs page's assets are counted apart (http/docs.ts), the page and its document with the API
      const asset = await http('GET', `${base}/docs/static/swagger-initializer.js`);
      expect([asset.status, asset.headers.get('x-ratelimit-limit')]).toEqual([200, '3000']);
      expect((await http('GET', `${base}/docs/json`)).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});

const problem429 = (body: unknown): unknown => (body as { title?: string }).title;

describe('several Authorization headers', () => {
  it('are refused with a 400, not read as the first caller (a proxy may read another)', async () => {
    const [alice, root] = [await token('alice-two'), await token('root-two', { roles: ['admin'] })];
    const status = await new Promise<number>((resolve, reject) => {
      request(
        `${server.url}/api/v1/users`,
        { headers: ['authorization', `Bearer ${alice}`, 'authorization', `Bearer ${root}`] },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(400);
  });
});

describe('start-up safety and dev tokens', () => {
  it('refuses to start without a way to verify tokens, or with a short secret, in one line', async () => {
    for (const env of [{ JWT_SECRET: '' }, { JWT_SECRET: 'short' }]) {
      const failed = await startToFailure(dir, env);
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim().split('\n')).toHaveLength(1);
      expect(failed.stderr).toMatch(/ConfigError: .*JWT_SECRET/);
    }
  });

  it('npm run token prints a token the server accepts', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'token', '--', '--sub', 'root', '--roles', 'admin'], {
      cwd: dir,
      env: { ...process.env, JWT_SECRET: SECRET },
    });
    const printed = stdout.trim();
    expect(printed.split('.')).toHaveLength(3);
    expect((await as(printed)('GET', `${api}/users`)).status).toBe(200);
  });

  it('npm run token -- --help prints its usage only (a newcomer saw "Unknown option" first)', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'token', '--', '--help'], { cwd: dir, env: process.env });
    expect(stdout.trim()).toBe('usage: npm run token -- --sub <subject> [--roles a,b] [--expires 1h]');
  });
});

describe('JWKS', () => {
  let keys: Server;
  let jwksServer: RunningServer;
  let served: JWK[] = [];
  let fetches = 0;

  beforeAll(async () => {
    keys = createServer((_request, response) => {
      fetches += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((listening) => keys.listen(0, '127.0.0.1', listening));
    const address = keys.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    jwksServer = await startServer(
      dir,
      {
        DATABASE_URL: await databaseUrl('auth-jwks'),
        JWT_SECRET: '',
        JWT_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
        JWT_ISSUER: 'https://issuer.test',
        JWT_AUDIENCE: 'blog',
      },
      '/api/v1/healthz',
    );
  });

  afterAll(async () => {
    await jwksServer?.stop();
    keys?.close();
  });

  const issuer = 'https://issuer.test';
  const audience = 'blog';

  it('accepts RS256 and ES256 tokens from the key set, and refetches it for a key id it has not seen', async () => {
    const rsa = await keyPair('RS256', 'rsa-1');
    const ec = await keyPair('ES256', 'ec-1');
    served = [rsa.jwk];
    const users = `${jwksServer.url}/api/v1/users`;
    const rsToken = await rsa.sign('root', { roles: ['admin'], issuer, audience });
    expect((await as(rsToken)('GET', users)).status).toBe(200);
    expect((await as(rsToken)('GET', users)).status).toBe(200);
    expect(fetches).toBe(1);

    // a new key is published: the server fetches the set again when it meets its key id
    // (at most once a second: wait out the cool-down of the first fetch)
    served = [rsa.jwk, ec.jwk];
    await new Promise((wait) => setTimeout(wait, 1_100));
    const esToken = await ec.sign('root', { roles: ['admin'], issuer, audience });
    expect((await as(esToken)('GET', users)).status).toBe(200);
    expect(fetches).toBe(2);
  });

  it('refuses a token from a key outside the set, the wrong issuer or audience, and HS256 with any secret', async () => {
    const rsa = await keyPair('RS256', 'rsa-2');
    const stranger = await keyPair('RS256', 'rsa-2');
    served = [rsa.jwk];
    await new Promise((wait) => setTimeout(wait, 1_100));
    const users = `${jwksServer.url}/api/v1/users`;
    const status = async (bearer: string) => (await as(bearer)('GET', users)).status;
    expect(await status(await rsa.sign('root', { roles: ['admin'], issuer, audience }))).toBe(200);
    expect(await status(await stranger.sign('root', { roles: ['admin'], issuer, audience }))).toBe(401);
    expect(await status(await rsa.sign('root', { roles: ['admin'], issuer: 'https://evil.test', audience }))).toBe(401);
    expect(await status(await rsa.sign('root', { roles: ['admin'], issuer, audience: 'other' }))).toBe(401);
    expect(await status(await rsa.sign('root', { roles: ['admin'] }))).toBe(401);
    expect(await status(await token('root', { roles: ['admin'], issuer, audience }))).toBe(401);
  });
});
