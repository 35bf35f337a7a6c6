import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuthorizer } from '../../runtime/src/auth/authorize.js';
import { TokenError, type Caller, type TokenVerifier } from '../../runtime/src/auth/verify.js';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';
import { ASSETS_PER_REQUEST, countDocsAssetsApart, installDocs } from '../../runtime/src/http/docs.js';
import { bucket, installRateLimit } from '../../runtime/src/http/rate-limit.js';
import { DEPENDENCIES } from '../../src/generate/project-files.js';

/** `cached-*` tokens were verified before (answered at once), `fresh-*` ones are verified now; others are refused. */
const verifier: TokenVerifier = {
  cached: (token) => (token.startsWith('cached-') ? { subject: token, roles: [] } : undefined),
  verify: async (token): Promise<Caller> => {
    if (!token.startsWith('fresh-')) throw new TokenError('not a token of this table');
    return { subject: token, roles: [] };
  },
};

let app: FastifyInstance | undefined;
afterEach(async () => app?.close());

/**
 * An app limited to `max` requests a minute, with routes as the generated server and a user's may have; `gone`: its
 * requests have no address, as one whose client reset the connection.
 */
async function limited(max: number, gone = false): Promise<FastifyInstance> {
  app = Fastify();
  installErrorHandlers(app);
  if (gone) app.addHook('onRequest', async (request) => Object.defineProperty(request, 'ip', { value: undefined }));
  await installRateLimit(app, createAuthorizer(verifier, 'admin'), max);
  app.get('/posts', async () => ({ ok: true }));
  app.get('/healthz', { config: { rateLimit: false } }, async () => ({ status: 'ok' }));
  // untyped (a plain-JavaScript user's): the plugin's types allow no null
  app.get('/unset', { config: { rateLimit: null } as never }, async () => ({ unset: true }));
  app.get('/own', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ({ own: true }));
  await app.register(async (child) => {
    child.get('/nested', async () => ({ nested: true }));
  });
  return app;
}

const get = (server: FastifyInstance, url: string, token?: string, method: 'GET' | 'HEAD' = 'GET') =>
  server.inject({ method, url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

describe('the in-process rate limit', () => {
  it('counts each request of an address, with the limit headers, then answers 429 with Retry-After', async () => {
    const server = await limited(3);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(server, '/posts'));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    for (const answer of answers) {
      expect(answer.headers['x-ratelimit-limit']).toBe('3');
      expect(Number(answer.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(answer.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
    }
    const over = answers[3];
    expect(Number(over?.headers['retry-after'])).toBeGreaterThan(0);
    expect(over?.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(over?.json()).toMatchObject({
      status: 429,
      title: 'Too Many Requests',
      detail: 'more than 3 requests per minute: try again later',
    });
  });

  it('limits routes of child plugins and a HEAD request once, not routes with `rateLimit: false`', async () => {
    const server = await limited(3);
    expect((await get(server, '/posts', undefined, 'HEAD')).headers['x-ratelimit-remaining']).toBe('2');
    expect((await get(server, '/nested')).headers['x-ratelimit-remaining']).toBe('1');
    const health = await get(server, '/healthz');
    expect(health.statusCode).toBe(200);
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
    expect((await get(server, '/posts')).headers['x-ratelimit-remaining']).toBe('0');
    expect((await get(server, '/nested')).statusCode).toBe(429);
  });

  it("leaves a route's own limit to @fastify/rate-limit, counted apart", async () => {
    const server = await limited(3);
    const first = await get(server, '/own');
    expect([first.statusCode, first.headers['x-ratelimit-limit']]).toEqual([200, '1']);
    const second = await get(server, '/own');
    expect(second.statusCode).toBe(429);
    expect(second.json()).toMatchObject({ detail: 'more than 1 requests per minute: try again later' });
    expect((await get(server, '/posts')).headers['x-ratelimit-remaining']).toBe('2');
  });

  it('counts a verified token apart from its address, from its first request; a refused one against the address', async () => {
    const server = await limited(1);
    expect((await get(server, '/posts')).statusCode).toBe(200);
    expect((await get(server, '/posts')).statusCode).toBe(429);
    // verified before (at once) and verified by this request (a promise): each its own bucket
    expect((await get(server, '/posts', 'cached-ann')).statusCode).toBe(200);
    expect((await get(server, '/posts', 'fresh-bob')).statusCode).toBe(200);
    expect((await get(server, '/posts', 'fresh-bob')).statusCode).toBe(429);
    expect((await get(server, '/posts', 'forged')).statusCode).toBe(429);
  });

  it("counts in one callback hook per route, not also in the plugin's async one (the cost of a small request)", async () => {
    const server = await limited(3);
    await server.ready();
    const printed = server.printRoutes({ includeHooks: true, commonPrefix: false });
    expect(printed).toMatch(/\/posts \(GET\)\n\W*\(onRequest\) \["limit\(\)"\]\n/);
    expect(printed).toMatch(/\/posts \(HEAD\)\n\W*\(onRequest\) \["limit\(\)"\]\n/);
  });

  it('limits a route whose `rateLimit` is null, as the plugin reads it (no setting of its own)', async () => {
    const server = await limited(1);
    expect((await get(server, '/unset')).headers['x-ratelimit-remaining']).toBe('0');
    expect((await get(server, '/unset')).statusCode).toBe(429);
  });

  it('answers a request whose client has gone while its new token was verified (no hang, no crash)', async () => {
    const server = await limited(5, true);
    const answers = await Promise.all([get(server, '/posts', 'fresh-cyd'), get(server, '/posts', 'forged-eve')]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    expect(answers[1]?.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('is off with a limit of 0', async () => {
    const server = await limited(0);
    const answer = await get(server, '/posts');
    expect([answer.statusCode, answer.headers['x-ratelimit-limit']]).toEqual([200, undefined]);
  });
});

describe('the docs page under a rate limit', () => {
  it('counts the page and the document it reads; its scripts, styles and icons apart, with ten times the limit', async () => {
    app = Fastify();
    installErrorHandlers(app);
    countDocsAssetsApart(app, '/api', 2);
    await installRateLimit(app, createAuthorizer(verifier, 'admin'), 2);
    await app.register(
      async (api) => {
        await installDocs(api, '/api');
        // a route of the user's under the same folder is no asset of the page: limited as the API is
        api.get('/docs/static/report', async () => ({ mine: true }));
      },
      { prefix: '/api' },
    );
    const page = await get(app, '/api/docs/');
    expect(page.statusCode).toBe(200);
    const assets = [...page.body.matchAll(/(?:src|href)="\.\/(static\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets).toHaveLength(7);
    for (const asset of assets) {
      const answer = await get(app, `/api/docs/${asset}`);
      expect(answer.statusCode, asset).toBe(200);
      expect(answer.headers['x-ratelimit-limit'], asset).toBe(String(2 * ASSETS_PER_REQUEST));
    }
    expect((await get(app, '/api/docs/json')).statusCode).toBe(200);
    // the page and the document were the limit's two: the next is refused, and so is the user's route; the assets not
    expect((await get(app, '/api/docs/')).statusCode).toBe(429);
    expect((await get(app, '/api/openapi.json')).statusCode).toBe(429);
    expect((await get(app, '/api/docs/static/report')).statusCode).toBe(429);
    expect((await get(app, '/api/docs/static/swagger-initializer.js')).statusCode).toBe(200);
    // nor are they unbounded: the initializer's own count reaches its limit of 20 (one request above)
    const statuses: number[] = [];
    for (let i = 0; i < 2 * ASSETS_PER_REQUEST; i++)
      statuses.push((await get(app, '/api/docs/static/swagger-initializer.js')).statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2 * ASSETS_PER_REQUEST - 2);
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });
});

describe('the bucket of a request', () => {
  it('of a request without an address (its client gone) is the empty address, not an error', () => {
    expect(bucket({ ip: undefined as unknown as string }, undefined)).toBe('ip:');
  });

  it('is made with normalizeIP, which @fastify/rate-limit exports from 11.2.0: generated projects ask for no older', () => {
    const floor = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(DEPENDENCIES['@fastify/rate-limit'])?.slice(1).map(Number) ?? [];
    expect(floor[0]).toBe(11);
    expect(floor[1]).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['203.0.113.7', undefined, 'ip:203.0.113.7'],
    ['203.0.113.7', 'ann', 'sub:ann'],
    ['2001:db8:1:2:aaaa::1', undefined, 'ip:2001:db8:1:2::'],
    ['2001:db8:1:2:ffff:ffff:ffff:fffe', undefined, 'ip:2001:db8:1:2::'],
    ['2001:db8:1:3::1', undefined, 'ip:2001:db8:1:3::'],
    ['::ffff:198.51.100.9', undefined, 'ip:198.51.100.9'],
  ])('of %s with subject %s is %s (an IPv6 address by its /64)', (ip, subject, want) => {
    expect(bucket({ ip }, subject)).toBe(want);
  });
});
