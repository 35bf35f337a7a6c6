import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, runSql } from '../helpers/database.js';
import { SECRET, token } from '../helpers/tokens.js';
import {
  generateFresh,
  http,
  ROOT,
  startServer,
  startToFailure,
  typecheckAndBuild,
  type RunningServer,
} from '../helpers/project.js';

/**
 * Horizontal scale: two instances of one generated server on one PostgreSQL database, as behind a load balancer.
 * Every guarantee of a single server must hold across them (test/e2e/fixtures/shop.yaml).
 */

let dir: string;
let url: string;
let a: RunningServer;
let b: RunningServer;

beforeAll(async () => {
  dir = await generateFresh(`${ROOT}/test/e2e/fixtures/shop.yaml`, 'pg-instances');
  await typecheckAndBuild(dir);
  url = await databaseUrl('instances');
  // started together: both migrate the empty database, under the advisory lock
  [a, b] = await Promise.all([
    startServer(dir, { DATABASE_URL: url, JWT_SECRET: SECRET }),
    startServer(dir, { DATABASE_URL: url, JWT_SECRET: SECRET }),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

type Order = { id: string; item: string; count: number; status: string };
const create = async (server: RunningServer, item: string, headers: Record<string, string> = {}) =>
  http('POST', `${server.url}/orders`, { item }, headers);

describe('two instances on one PostgreSQL', () => {
  it('migrated the database exactly once, though both started on it together', async () => {
    const applied = await runSql(url, dir, 'SELECT name FROM restsmith_migrations');
    expect(applied).toEqual([{ name: '0001-initial' }]);
  });

  it('reads through one what was written through the other', async () => {
    const created = await create(a, 'written through a');
    expect(created.status).toBe(201);
    const { id } = created.body as Order;
    const read = await http('GET', `${b.url}/orders/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    const page = (await http('GET', `${b.url}/orders?item=written%20through%20a`)).body as { items: Order[] };
    expect(page.items.map((o) => o.id)).toEqual([id]);
  });

  it('lets one If-Match update per version win, across both: no update is lost', async () => {
    const { id } = (await create(a, 'counted')).body as Order;
    const increments = 8;
    // each instance's client adds 1, `increments` times: read, then write at the version it read, retry on 412
    const client = async (server: RunningServer): Promise<number> => {
      let refused = 0;
      for (let done = 0; done < increments;) {
        const current = await http('GET', `${server.url}/orders/${id}`);
        const etag = current.headers.get('etag') ?? '';
        const { count } = current.body as Order;
        const written = await http('PATCH', `${server.url}/orders/${id}`, { count: count + 1 }, { 'if-match': etag });
        if (written.status === 200) done += 1;
        else if (written.status === 412) refused += 1;
        else throw new Error(`unexpected ${written.status}: ${written.text}`);
      }
      return refused;
    };
    await Promise.all([client(a), client(b)]);
    const final = (await http('GET', `${b.url}/orders/${id}`)).body as Order;
    expect(final.count).toBe(2 * increments);

    // and at one version, concurrent writes through both: exactly one wins
    const etag = (await http('GET', `${a.url}/orders/${id}`)).headers.get('etag') ?? '';
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        http('PATCH', `${(i % 2 === 0 ? a : b).url}/orders/${id}`, { count: i }, { 'if-match': etag }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(9).fill(412)]);
  });

  it('holds an Idempotency-Key across instances', async () => {
    // keys belong to token subjects: anonymous callers' keys are ignored
    const bearer = { authorization: `Bearer ${await token('across-instances')}` };
    const key = { ...bearer, 'idempotency-key': 'across-instances-1' };
    const first = await create(a, 'once', key);
    const repeat = await create(b, 'once', key);
    expect(first.status).toBe(201);
    expect(repeat.status).toBe(201);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('location')).toBe(first.headers.get('location'));
    const other = await create(b, 'another body', key);
    expect(other.status).toBe(422);

    // concurrent repeats through both instances act once
    const together = { ...bearer, 'idempotency-key': 'across-instances-2' };
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create(i % 2 === 0 ? a : b, 'together', together)),
    );
    expect(new Set(answers.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((r) => (r.body as Order).id)).size).toBe(1);
    const page = (await http('GET', `${a.url}/orders?item=together`)).body as { items: Order[] };
    expect(page.items).toHaveLength(1);
  });

  it('runs a when+set action once when both instances race for it', async () => {
    const { id } = (await create(a, 'to pay')).body as Order;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => http('POST', `${(i % 2 === 0 ? a : b).url}/orders/${id}/pay`)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(19).fill(409)]);
    expect(((await http('GET', `${b.url}/orders/${id}`)).body as Order).status).toBe('paid');
  });
});

describe('rate limits across instances', () => {
  const burst = async (servers: RunningServer[], requests: number): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < requests; i += 1) statuses.push((await http('GET', `${servers[i % 2]?.url}/orders`)).status);
    return statuses;
  };

  it('are shared through Redis when REDIS_URL is set', async () => {
    const redis = process.env.RESTSMITH_TEST_REDIS_URL ?? '';
    expect(redis, 'scripts/test.sh starts Redis and sets RESTSMITH_TEST_REDIS_URL').not.toBe('');
    // counters left by an earlier run on the same Redis (only ours: the servers' key prefix)
    const client = new Redis(redis);
    const stale = await client.keys('restsmith-rate-limit:*');
    if (stale.length > 0) await client.del(...stale);
    await client.quit();
    const env = { DATABASE_URL: url, RATE_LIMIT_MAX: '', REDIS_URL: redis };
    const servers = await Promise.all([startServer(dir, env), startServer(dir, env)]);
    try {
      // the definition allows 5 a minute: the 6th request from this client is refused, whichever instance it reaches
      const statuses = await burst(servers, 8);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      // the docs page's assets are counted apart (http/docs.ts), with ten times the limit, by the plugin too
      expect((await http('GET', `${servers[0]?.url}/docs/static/swagger-initializer.js`)).status).toBe(200);
      expect((await http('GET', `${servers[1]?.url}/docs/json`)).status).toBe(429);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  it('are counted by each instance on its own without Redis', async () => {
    const env = { DATABASE_URL: url, RATE_LIMIT_MAX: '' };
    const servers = await Promise.all([startServer(dir, env), startServer(dir, env)]);
    try {
      // 5 a minute per instance: 10 requests spread over two instances all pass, the 11th and 12th do not
      const statuses = await burst(servers, 12);
      expect(statuses).toEqual([...Array<number>(10).fill(200), 429, 429]);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});

describe('a PostgreSQL that cannot be used', () => {
  it('stops the server at start with one line naming the problem', async () => {
    const base = new URL(process.env.RESTSMITH_TEST_PG_URL ?? '');
    const missing = new URL(base);
    missing.pathname = '/no_such_database';
    // a setting PostgreSQL refuses as the connection starts (SQLSTATE 22023): its own message, not "value constraint"
    const badSetting = new URL(base);
    badSetting.searchParams.set('options', '-c TimeZone=Mars/Olympus');
    for (const [DATABASE_URL, reason] of [
      ['postgres://postgres@127.0.0.1:1/nothing', /ECONNREFUSED/],
      [missing.toString(), /database "no_such_database" does not exist/],
      [badSetting.toString(), /invalid value for parameter "TimeZone": "Mars\/Olympus"/],
    ] as const) {
      // waited for DATABASE_CONNECT_TIMEOUT when waiting may mend it (refused, not created yet), else at once
      const failed = await startToFailure(dir, { DATABASE_URL, DATABASE_CONNECT_TIMEOUT: '1000' });
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim()).toMatch(/^DatabaseConnectError: the database (did not answer|refused the server)/);
      expect(failed.stderr).toMatch(reason);
      expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('a PostgreSQL out of connections', () => {
  it('answers 503 with Retry-After, never 500', async () => {
    const limitedUrl = new URL(await databaseUrl('limited'));
    const database = limitedUrl.pathname.slice(1);
    const role = `limited_${database.slice(-8)}`;
    await runSql(process.env.RESTSMITH_TEST_PG_URL ?? '', dir, `CREATE ROLE "${role}" LOGIN CONNECTION LIMIT 2`);
    await runSql(process.env.RESTSMITH_TEST_PG_URL ?? '', dir, `ALTER DATABASE "${database}" OWNER TO "${role}"`);
    limitedUrl.username = role;
    const server = await startServer(dir, { DATABASE_URL: limitedUrl.toString(), DATABASE_POOL_SIZE: '8' });
    try {
      const { id } = (await create(server, 'popular')).body as Order;
      const answers = await Promise.all(Array.from({ length: 30 }, () => http('GET', `${server.url}/orders/${id}`)));
      const statuses = new Set(answers.map((r) => r.status));
      expect([...statuses].sort()).toEqual([200, 503]);
      for (const r of answers.filter((a) => a.status === 503)) {
        expect(r.headers.get('retry-after')).toBe('1');
        expect((r.body as { detail: string }).detail).toBe('the database cannot answer now: try again shortly');
      }
      // /healthz too: a 503 problem with Retry-After when its ping cannot get through, never a 500
      const health = await Promise.all(Array.from({ length: 30 }, () => http('GET', `${server.url}/healthz`)));
      expect(health.some((r) => r.status === 503)).toBe(true);
      expect(health.every((r) => r.status === 200 || r.status === 503)).toBe(true);
      for (const r of health.filter((a) => a.status === 503)) expect(r.headers.get('retry-after')).toBe('1');
    } finally {
      await server.stop();
    }
  });
});
