import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import promClient from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizer } from '../../runtime/src/auth/authorize.js';
import type { TokenVerifier } from '../../runtime/src/auth/verify.js';
import { ConfigError, readConfig, readMetrics } from '../../runtime/src/config.js';
import { ScanRefusedError, type Database, type DatabaseLoad } from '../../runtime/src/db/database.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';
import { installPressure } from '../../runtime/src/http/pressure.js';
import { installRateLimit } from '../../runtime/src/http/rate-limit.js';
import { REFUSALS } from '../../runtime/src/http/refusals.js';
import { installMetrics } from '../../runtime/src/metrics/metrics.js';
import { freePort } from '../helpers/project.js';
import { parsePrometheus, scrape } from '../helpers/prometheus.js';
import { saturateEventLoop } from '../helpers/event-loop.js';

/**
 * The metrics (SPEC §11) of one Fastify app, as buildApp installs them: series by route pattern and status, refusals
 * by reason, the database's load read at each scrape, on a listener of their own; and what METRICS_PORT may be.
 */
describe('METRICS_PORT and METRICS_HOST', () => {
  it('turn the metrics on, on HOST unless METRICS_HOST says otherwise', () => {
    expect(readMetrics({})).toBeNull();
    expect(readMetrics({ METRICS_PORT: '' })).toBeNull();
    expect(readMetrics({ METRICS_PORT: '9464' })).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(readMetrics({ METRICS_PORT: '9464', HOST: '0.0.0.0' })).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(readMetrics({ METRICS_PORT: '9464', HOST: '0.0.0.0', METRICS_HOST: '127.0.0.1' })).toEqual({
      port: 9464,
      host: '127.0.0.1',
    });
    expect(readConfig({ METRICS_PORT: '9100', JWT_SECRET: 'a-secret-of-thirty-two-bytes-or-more' }).metrics).toEqual({
      port: 9100,
      host: '127.0.0.1',
    });
  });

  it('refuse a port that is none, or the API’s own', () => {
    for (const value of ['0', '65536', 'abc', '94 64', '-1', '1e3']) {
      expect(() => readMetrics({ METRICS_PORT: value }), value).toThrow(ConfigError);
    }
    expect(() => readMetrics({ METRICS_PORT: '3000' })).toThrow(/must differ from PORT/);
    expect(() => readMetrics({ METRICS_PORT: '8080', PORT: '8080' })).toThrow(/must differ from PORT/);
  });
});

describe('the text parser of these tests', () => {
  it('reads labels with escapes, special values and histogram samples', () => {
    const parsed = parsePrometheus(
      [
        '# HELP a_total A help, with "quotes".',
        '# TYPE a_total counter',
        'a_total{path="/x\\"y\\\\z\\n",b="2"} 3',
        '# TYPE h histogram',
        'h_bucket{le="+Inf"} 4 1700000000000',
        'h_sum 1.5e-3',
        'h_count 4',
        '# TYPE g gauge',
        'g Nan',
        '',
      ].join('\n'),
    );
    expect(parsed.value('a_total', { b: '2' })).toBe(3);
    expect(parsed.find('a_total')[0]?.labels.path).toBe('/x"y\\z\n');
    expect(parsed.value('h_bucket', { le: '+Inf' })).toBe(4);
    expect(parsed.value('h_sum')).toBe(0.0015);
    expect(parsed.value('g')).toBeNaN();
    expect(parsed.value('missing')).toBeUndefined();
  });

  it('throws on what is not the format', () => {
    for (const text of [
      '# TYPE a counter\na{b="c} 1',
      '# TYPE a counter\na{b=c} 1',
      '# TYPE a counter\na 1 2 3',
      '# TYPE a counter\na one',
      '# TYPE a counter\na{b="\\x"} 1',
      'untyped_family 1',
      '# TYPE a counter\n{b="c"} 1',
    ]) {
      expect(() => parsePrometheus(text), text).toThrow(/^line \d/);
    }
  });
});

const verifier: TokenVerifier = { cached: () => undefined, verify: async () => ({ subject: 'x', roles: [] }) };

const noLoad = (): DatabaseLoad => ({ pools: {}, failed: { constraint: 0, unavailable: 0, error: 0 } });

/** A database that is only its load (what the metrics read of one), as `load` says it now. */
function loadOnly(load: () => DatabaseLoad): Database {
  return { dialect: 'sqlite', load } as unknown as Database;
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An app with metrics at `port`, a rate limit of 2, and routes as the generated server's are. */
async function metered(db: Database, port: number): Promise<FastifyInstance> {
  app = Fastify();
  installErrorHandlers(app);
  await installMetrics(app, db, { port, host: '127.0.0.1' });
  await installRateLimit(app, createAuthorizer(verifier, 'admin'), 2);
  await app.register(
    async (api) => {
      api.get('/items/:id', async (request) => ({ id: (request.params as { id: string }).id }));
      api.get('/free', { config: { rateLimit: false } }, async () => ({}));
      api.get('/busy', { config: { rateLimit: false } }, async () => {
        throw new ScanRefusedError('busy', 1);
      });
    },
    { prefix: '/api' },
  );
  await app.ready();
  return app;
}

describe('the metrics of requests', () => {
  it('count each route by its pattern, method and status, unmatched paths apart, with durations', async () => {
    const port = await freePort();
    const server = await metered(loadOnly(noLoad), port);
    new promClient.Counter({ name: 'mine_total', help: 'a series of the application’s own' }).inc(7);
    // each from an address of its own: under the rate limit
    let client = 0;
    const remote = (url: string, method: 'GET' | 'HEAD' = 'GET') =>
      server.inject({ method, url, remoteAddress: `10.0.0.${(client += 1)}` });
    expect((await remote('/api/items/1')).statusCode).toBe(200);
    expect((await remote('/api/items/22')).statusCode).toBe(200);
    expect((await remote('/api/items/333', 'HEAD')).statusCode).toBe(200);
    expect((await remote('/api/nowhere/at/all')).statusCode).toBe(404);
    // methods beyond HTTP's usual ones, which Node's parser takes from any client, are one label between them
    for (const method of ['PROPFIND', 'MKCOL', 'LOCK'] as const)
      expect((await server.inject({ method, url: '/api/nowhere', remoteAddress: '10.0.1.1' })).statusCode).toBe(404);
    const metrics = await scrape(`http://127.0.0.1:${port}/metrics`);
    const item = { route: '/api/items/:id', status: '200' };
    expect(metrics.value('http_requests_total', { ...item, method: 'GET' })).toBe(2);
    expect(metrics.value('http_requests_total', { ...item, method: 'HEAD' })).toBe(1);
    expect(metrics.value('http_requests_total', { route: 'unmatched', status: '404', method: 'GET' })).toBe(1);
    expect(metrics.value('http_requests_total', { route: 'unmatched', status: '404', method: 'other' })).toBe(3);
    expect(metrics.samples.filter((sample) => sample.labels.method === 'PROPFIND')).toEqual([]);
    // the URL asked is never a label
    expect(metrics.samples.some((sample) => Object.values(sample.labels).some((v) => /items\/\d/.test(v)))).toBe(false);
    expect(metrics.types.get('http_request_duration_seconds')).toBe('histogram');
    expect(metrics.value('http_request_duration_seconds_count', { ...item, method: 'GET' })).toBe(2);
    expect(metrics.value('http_request_duration_seconds_bucket', { ...item, method: 'GET', le: '+Inf' })).toBe(2);
    expect(metrics.value('http_request_duration_seconds_sum', { ...item, method: 'GET' })).toBeGreaterThan(0);
    // and the process's own, from prom-client, and yours, of its default registry
    expect(metrics.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(metrics.value('mine_total')).toBe(7);
    expect(metrics.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
  });

  it('count refusals by reason, each from 0', async () => {
    const port = await freePort();
    const server = await metered(loadOnly(noLoad), port);
    const before = await scrape(`http://127.0.0.1:${port}/metrics`);
    for (const reason of REFUSALS) expect(before.value('restsmith_requests_refused_total', { reason }), reason).toBe(0);
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await server.inject('/api/items/1')).statusCode);
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect((await server.inject('/api/busy')).statusCode).toBe(503);
    const after = await scrape(`http://127.0.0.1:${port}/metrics`);
    expect(after.value('restsmith_requests_refused_total', { reason: 'rate_limit' })).toBe(2);
    expect(after.value('restsmith_requests_refused_total', { reason: 'scan_busy' })).toBe(1);
    expect(after.value('restsmith_requests_refused_total', { reason: 'overloaded' })).toBe(0);
    expect(after.value('http_requests_total', { route: '/api/items/:id', status: '429' })).toBe(2);
  });

  it('count the 503s of an overloaded event loop', async () => {
    const port = await freePort();
    app = Fastify();
    installErrorHandlers(app);
    await installMetrics(app, loadOnly(noLoad), { port, host: '127.0.0.1' });
    await installPressure(app, 50);
    app.get('/posts', async () => ({ items: [] }));
    await app.ready();
    await saturateEventLoop();
    expect((await app.inject('/posts')).statusCode).toBe(503);
    const after = await scrape(`http://127.0.0.1:${port}/metrics`);
    expect(after.value('restsmith_requests_refused_total', { reason: 'overloaded' })).toBe(1);
    expect(after.value('http_requests_total', { route: '/posts', status: '503' })).toBe(1);
  });

  it('are served on their own port only, GET and HEAD of /metrics alone, until the app closes', async () => {
    const port = await freePort();
    const server = await metered(loadOnly(noLoad), port);
    expect((await server.inject('/metrics')).statusCode).toBe(404);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/other`)).status).toBe(404);
    const post = await fetch(`${base}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    await server.close();
    app = undefined;
    await expect(fetch(`${base}/metrics`)).rejects.toThrow();
  });

  it('refuse to start on a port taken, in one line', async () => {
    const port = await freePort();
    await metered(loadOnly(noLoad), port);
    const second = Fastify();
    await installMetrics(second, loadOnly(noLoad), {
      port,
      host: '127.0.0.1',
    });
    await expect(second.ready()).rejects.toThrow(
      new ConfigError(`cannot listen on 127.0.0.1:${port} for the metrics (METRICS_PORT): EADDRINUSE`),
    );
    await second.close();
  });

  it('add no hook to a route without settings', async () => {
    const hooksOfARoute = async (settings: { port: number; host: string } | null): Promise<unknown> => {
      const bare = Fastify();
      const installed = await installMetrics(bare, loadOnly(noLoad), settings);
      expect(installed === null).toBe(settings === null);
      // an onRoute hook added after the metrics' sees what theirs did to the route
      let seen: unknown;
      bare.addHook('onRoute', (route) => {
        seen = route.onResponse;
      });
      bare.get('/x', async () => ({}));
      await bare.close();
      return seen;
    };
    expect(await hooksOfARoute(null)).toBeUndefined();
    expect(await hooksOfARoute({ port: await freePort(), host: '127.0.0.1' })).toHaveLength(1);
  });
});

describe('the metrics of the database', () => {
  it('are its load as it is at the scrape, by pool', async () => {
    let load: DatabaseLoad = {
      pools: { main: { inUse: 3, waiting: 2, max: 10 }, scan: { inUse: 1, waiting: 0, max: 2 } },
      failed: { constraint: 4, unavailable: 1, error: 0 },
    };
    const port = await freePort();
    await metered(
      loadOnly(() => load),
      port,
    );
    const url = `http://127.0.0.1:${port}/metrics`;
    const first = await scrape(url);
    expect(first.value('restsmith_db_pool_in_use', { pool: 'main' })).toBe(3);
    expect(first.value('restsmith_db_pool_waiting', { pool: 'main' })).toBe(2);
    expect(first.value('restsmith_db_pool_max', { pool: 'scan' })).toBe(2);
    expect(first.value('restsmith_db_statements_failed_total', { reason: 'constraint' })).toBe(4);
    expect(first.value('restsmith_db_statements_failed_total', { reason: 'error' })).toBe(0);
    expect(first.types.get('restsmith_db_statements_failed_total')).toBe('counter');
    load = { pools: { scan: { inUse: 0, waiting: 0, max: 2 } }, failed: { constraint: 5, unavailable: 1, error: 2 } };
    const second = await scrape(url);
    expect(second.value('restsmith_db_pool_in_use', { pool: 'scan' })).toBe(0);
    expect(second.value('restsmith_db_statements_failed_total', { reason: 'constraint' })).toBe(5);
    expect(second.value('restsmith_db_statements_failed_total', { reason: 'error' })).toBe(2);
  });
});

describe('the load of SQLite', () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'metrics-'));
    db = openSqlite(join(dir, 'app.db'), { slots: 1, queue: 4, perClient: 5, timeoutMs: 10_000 });
    await db.prepareText('CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "name" TEXT UNIQUE, "n" INTEGER)').run([]);
    await db.prepareText(`INSERT INTO "t" VALUES (1, 'one', 1), (2, 'two', 2)`).run([]);
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the scans running on its worker and waiting for it', async () => {
    const slow = db.prepareList(
      `SELECT "id" FROM "t" WHERE "n" > (WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
       SELECT count(*) - ? FROM k) ORDER BY "id" LIMIT 1`,
      { table: 't', conditions: ['n'] },
    );
    expect(db.load().pools).toEqual({ scan: { inUse: 0, waiting: 0, max: 1 } });
    const both = [slow.all([200_000, 200_000], () => 'a'), slow.all([200_000, 200_000], () => 'b')];
    expect(db.load().pools).toEqual({ scan: { inUse: 1, waiting: 1, max: 1 } });
    await Promise.all(both);
    expect(db.load().pools).toEqual({ scan: { inUse: 0, waiting: 0, max: 1 } });
  });

  it('counts the statements that failed, by reason, and not the errors of a transaction’s own code', async () => {
    const before = { ...db.load().failed };
    const insert = db.prepareText(`INSERT INTO "t" VALUES (?, ?, 3)`);
    await expect(insert.run([3, 'one'])).rejects.toThrow(/unique/);
    await expect(db.prepareText(`SELECT json(?) AS "j"`).get(['{'])).rejects.toThrow(/malformed JSON/);
    const broken = db.prepareList(`SELECT "id" FROM "t" WHERE "name" = json(?) ORDER BY "id" LIMIT 1`, {
      table: 't',
      conditions: ['name'],
    });
    await expect(broken.all(['not json'], () => 'me')).rejects.toThrow(/malformed JSON/);
    await expect(
      db.inTransaction(function* () {
        throw new Error('the program’s own');
      }),
    ).rejects.toThrow('the program’s own');
    expect(db.load().failed).toEqual({
      constraint: before.constraint + 1,
      unavailable: before.unavailable,
      error: before.error + 2,
    });
  });
});
