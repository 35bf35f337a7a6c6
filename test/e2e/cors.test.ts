import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { ROOT, serveGenerated, WORK, type RunningServer } from '../helpers/project.js';
import { SECRET, token } from '../helpers/tokens.js';

/**
 * CORS (SPEC §7) from a real browser: the blog with `cors.origins` naming one page's origin. A page of that origin
 * (another port of 127.0.0.1: another origin) creates a post and PATCHes it with If-Match, reading ETag and Location;
 * a page of another origin is refused by the browser, because the server sends it no CORS header.
 */
let api: RunningServer;
let browser: Browser;
let allowed: { server: Server; url: string };
let other: { server: Server; url: string };

/** A page server on a port of its own: an origin for the browser. */
async function pageServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` };
}

beforeAll(async () => {
  [allowed, other] = [await pageServer(), await pageServer()];
  const folder = join(WORK, 'cors-definition');
  mkdirSync(folder, { recursive: true });
  const blog = readFileSync(join(ROOT, 'examples/blog.yaml'), 'utf8');
  const definition = join(folder, 'blog.yaml');
  writeFileSync(
    definition,
    blog.replace(/^resources:/m, `cors:\n  origins: ["${allowed.url}"]\n  maxAge: 10m\nresources:`),
  );
  ({ server: api } = await serveGenerated(
    definition,
    'e2e-cors',
    // a rate limit on, so that its headers are there to be read
    { DATABASE_URL: await databaseUrl('cors'), JWT_SECRET: SECRET, RATE_LIMIT_MAX: '1000' },
    '/api/v1/healthz',
  ));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  allowed?.server.close();
  other?.server.close();
});

/** What a page's fetch saw: the status and the headers it could read, or the error the browser gave it. */
type Seen = { status: number; headers: Record<string, string | null>; body: unknown } | { error: string };

async function fetchFrom(
  page: Page,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<Seen> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const names = ['etag', 'location', 'x-ratelimit-limit', 'content-type'];
        const text = await response.text();
        return {
          status: response.status,
          headers: Object.fromEntries(names.map((name) => [name, response.headers.get(name)])),
          body: text === '' ? null : (JSON.parse(text) as unknown),
        };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, init },
  );
}

describe('CORS from a page on another origin', () => {
  it('an allowed origin creates and PATCHes with If-Match, reading ETag, Location and the problems', async () => {
    const admin = `Bearer ${await token('root', { roles: ['admin'] })}`;
    const page = await browser.newPage();
    await page.goto(allowed.url);
    const base = `${api.url}/api/v1`;
    const user = await fetchFrom(page, `${base}/users`, {
      method: 'POST',
      headers: { authorization: admin, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'cors@example.com' }),
    });
    expect(user).toMatchObject({ status: 201 });
    const userId = (user as { body: { id: string } }).body.id;
    const created = await fetchFrom(page, `${base}/posts`, {
      method: 'POST',
      headers: { authorization: admin, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'From a browser', authorId: userId }),
    });
    expect(created).toMatchObject({ status: 201, headers: { etag: '"1"', 'x-ratelimit-limit': expect.any(String) } });
    const post = (created as { body: { id: string } }).body;
    expect((created as { headers: Record<string, string> }).headers.location).toBe(`/api/v1/posts/${post.id}`);

    // a preflighted PATCH (Authorization, If-Match, a JSON body): allowed, and its new ETag readable
    const patched = await fetchFrom(page, `${base}/posts/${post.id}`, {
      method: 'PATCH',
      headers: { authorization: admin, 'content-type': 'application/json', 'if-match': '"1"' },
      body: JSON.stringify({ title: 'Edited in a browser' }),
    });
    expect(patched).toMatchObject({ status: 200, headers: { etag: '"2"' }, body: { title: 'Edited in a browser' } });
    // a stale If-Match: the 412 problem reaches the page too
    const stale = await fetchFrom(page, `${base}/posts/${post.id}`, {
      method: 'PATCH',
      headers: { authorization: admin, 'content-type': 'application/json', 'if-match': '"1"' },
      body: JSON.stringify({ title: 'Lost update' }),
    });
    expect(stale).toMatchObject({
      status: 412,
      headers: { 'content-type': 'application/problem+json; charset=utf-8' },
      body: { status: 412 },
    });
    await page.close();
  });

  it('another origin gets no CORS header: the browser refuses the answer to its page', async () => {
    const page = await browser.newPage();
    await page.goto(other.url);
    const seen = await fetchFrom(page, `${api.url}/api/v1/posts`, { method: 'GET', headers: {} });
    expect(seen).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
    await page.close();
    const plain = await fetch(`${api.url}/api/v1/posts`, { headers: { origin: other.url } });
    expect([...plain.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = await fetch(`${api.url}/api/v1/posts`, {
      method: 'OPTIONS',
      headers: { origin: other.url, 'access-control-request-method': 'POST' },
    });
    expect([...preflight.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('answers a preflight of an allowed origin with every method and header the API uses', async () => {
    const preflight = await fetch(`${api.url}/api/v1/posts/x`, {
      method: 'OPTIONS',
      headers: { origin: allowed.url, 'access-control-request-method': 'DELETE' },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries([...preflight.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': allowed.url,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key',
      'access-control-expose-headers':
        'ETag, Location, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Deprecation, Sunset, Link',
      'access-control-max-age': '600',
    });
  });
});
