import { readdirSync, readFileSync, readlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, get, type ClientRequest, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, ON_POSTGRES } from '../helpers/database.js';
import {
  freePort,
  generateFresh,
  http,
  startServer,
  typecheckAndBuild,
  WORK,
  type RunningServer,
} from '../helpers/project.js';
import { scrape, type Scrape } from '../helpers/prometheus.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * Prometheus metrics (SPEC §11) of a generated server started with METRICS_PORT: each series moves when what it
 * counts happens (a request, a write and its event, a webhook that fails, a stream opened and closed, a client over
 * the rate limit, a statement the database refuses, statements waiting for a connection), on a port of its own; and
 * a server started without METRICS_PORT listens on its API's port alone.
 */
const DEFINITION = `
name: metered
version: 1.0.0
prefix: /api
limits:
  rateLimit: { max: 20, window: 1m }
events:
  webhooks: true
  retry: { attempts: 2, firstDelay: 200ms }
resources:
  orders:
    fields:
      note: string
      code: { type: string, unique: true }
    access: { list: authenticated, read: authenticated, create: authenticated, update: authenticated, delete: authenticated }
  alerts:
    fields: { text: string }
    access: { list: authenticated, read: authenticated, create: authenticated, update: authenticated, delete: authenticated }
`;

/** The receiver: `/held` keeps each first attempt of a message until `release`, then answers every attempt 500. */
let receiver: Server;
let receiverUrl: string;
const held: ServerResponse[] = [];
const attempts: string[] = [];
const release = (): void => {
  for (const response of held.splice(0)) response.writeHead(500).end();
};

let dir: string;
let databaseUrlOf: string;
let url: string;
let server: RunningServer;
let metricsUrl: string;
let admin: ReturnType<typeof as>;

const metrics = (): Promise<Scrape> => scrape(metricsUrl);

/** Polls the metrics until `check` finds what it waits for (within 15 s). */
async function metricsUntil(what: string, check: (scraped: Scrape) => boolean): Promise<Scrape> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const scraped = await metrics();
    if (check(scraped)) return scraped;
    if (Date.now() > deadline) throw new Error(`waited 15 s for ${what}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

const waitUntil = (what: string, check: () => boolean): Promise<void> => waitFor(what, async () => check());

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited 15 s for ${what}`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

/** The TCP ports a process listens on, from its socket descriptors and the kernel's tables of sockets. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket?.[1] !== undefined) inodes.add(socket[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local address, state (0A: LISTEN), inode
      if (fields[3] === '0A' && inodes.has(fields[9] ?? '')) ports.add(parseInt(fields[1]?.split(':')[1] ?? '', 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

const portOf = (address: string): number => Number(new URL(address).port);

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const first = !attempts.includes(id);
      attempts.push(id);
      if (request.url === '/held' && first) held.push(response);
      else response.writeHead(500).end();
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;

  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'metered.yaml');
  writeFileSync(file, DEFINITION);
  dir = await generateFresh(file, 'e2e-metered');
  await typecheckAndBuild(dir);
  const metricsPort = await freePort();
  databaseUrlOf = await databaseUrl('metered', 'sqlite:./data/metered.db');
  server = await startServer(
    dir,
    {
      DATABASE_URL: databaseUrlOf,
      // two connections: three requests that wait on a lock fill the pool, and one waits for a connection
      DATABASE_POOL_SIZE: '2',
      JWT_SECRET: SECRET,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      RATE_LIMIT_MAX: '',
      METRICS_PORT: String(metricsPort),
    },
    '/api/healthz',
  );
  url = server.url;
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  // a start-up that held the event loop over MAX_EVENT_LOOP_DELAY (a busy machine) leaves the first second of
  // requests answered 503 `overloaded` (/healthz is exempt): these tests count each answer, so they wait it out
  await waitFor('the server not overloaded', async () => (await http('GET', `${url}/api/nowhere`)).status === 404);
  admin = as(await token('root', { roles: ['admin'] }));
});

afterAll(async () => {
  release();
  await server?.stop();
  await new Promise((closed) => receiver?.close(closed));
});

describe('the metrics listener', () => {
  it('serves /metrics on METRICS_PORT, on HOST, and the API’s port does not', async () => {
    expect(listeningPorts(server.process.pid ?? 0)).toEqual([portOf(url), portOf(metricsUrl)].sort((a, b) => a - b));
    expect((await metrics()).types.get('http_requests_total')).toBe('counter');
    for (const path of ['/metrics', '/api/metrics']) {
      const answer = await http('GET', `${url}${path}`);
      expect(answer.status, answer.text).toBe(404);
    }
  });

  it('is not there without METRICS_PORT: the server listens on its API’s port alone', async () => {
    const bare = await startServer(
      dir,
      { DATABASE_URL: await databaseUrl('unmetered'), JWT_SECRET: SECRET, METRICS_PORT: '' },
      '/api/healthz',
    );
    try {
      expect(listeningPorts(bare.process.pid ?? 0)).toEqual([portOf(bare.url)]);
    } finally {
      await bare.stop();
    }
  });

  it('has prom-client’s metrics of the process', async () => {
    const scraped = await metrics();
    expect(scraped.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(scraped.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(scraped.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
  });
});

describe('the series', () => {
  it('count requests by route pattern and status, with their durations', async () => {
    const reader = as(await token('reader'));
    const created = await reader('POST', `${url}/api/orders`, { note: 'to read' });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { id: string }).id;
    const route = { method: 'GET', route: '/api/orders/:id' };
    const ok = { ...route, status: '200' };
    const missing = { ...route, status: '404' };
    const before = await metrics();
    for (let i = 0; i < 3; i += 1) expect((await reader('GET', `${url}/api/orders/${id}`)).status).toBe(200);
    expect((await reader('GET', `${url}/api/orders/no-such-order`)).status).toBe(404);
    const after = await metrics();
    const moved = (name: string, labels: Record<string, string>): number =>
      (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
    expect(moved('http_requests_total', ok)).toBe(3);
    expect(moved('http_requests_total', missing)).toBe(1);
    expect(moved('http_request_duration_seconds_count', ok)).toBe(3);
    expect(moved('http_request_duration_seconds_bucket', { ...ok, le: '10' })).toBe(3);
    expect(moved('http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(3);
    expect(moved('http_request_duration_seconds_sum', ok)).toBeGreaterThan(0);
    // the URL's id is in no label
    expect(after.samples.some((sample) => Object.values(sample.labels).some((value) => value.includes(id)))).toBe(
      false,
    );
  });

  it('count the events written, and follow the feed’s newest seq', async () => {
    const writer = as(await token('writer'));
    const before = await metrics();
    const created = await writer('POST', `${url}/api/orders`, { note: 'first' });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await writer('PATCH', `${url}/api/orders/${id}`, { note: 'second' })).status).toBe(200);
    const after = await metrics();
    const written = (scraped: Scrape): number => scraped.value('restsmith_events_written_total') ?? NaN;
    expect(written(after) - written(before)).toBe(2);
    const feed = await admin('GET', `${url}/api/events?after=${before.value('restsmith_events_newest_seq') ?? 0}`);
    const events = (feed.body as { items: { seq: number; type: string }[] }).items;
    expect(events.map((event) => event.type)).toEqual(['orders.created', 'orders.updated']);
    expect(after.value('restsmith_events_newest_seq')).toBe(events.at(-1)?.seq);
  });

  it('count a webhook’s deliveries pending, then failed, and its attempts', async () => {
    const hook = await admin('POST', `${url}/api/webhooks`, { url: `${receiverUrl}/held`, types: ['alerts.created'] });
    expect(hook.status, hook.text).toBe(201);
    const alerter = as(await token('alerter'));
    expect((await alerter('POST', `${url}/api/alerts`, { text: 'down' })).status).toBe(201);
    await waitUntil('a delivery held', () => held.length === 1);
    const pending = await metrics();
    expect(pending.value('restsmith_webhook_deliveries', { status: 'pending' })).toBe(1);
    expect(pending.value('restsmith_webhook_deliveries', { status: 'failed' })).toBe(0);
    expect(pending.value('restsmith_webhook_attempts_total', { outcome: 'retrying' })).toBe(0);
    release();
    const failed = await metricsUntil(
      'the delivery failed',
      (scraped) => scraped.value('restsmith_webhook_deliveries', { status: 'failed' }) === 1,
    );
    expect(failed.value('restsmith_webhook_deliveries', { status: 'pending' })).toBe(0);
    expect(failed.value('restsmith_webhook_attempts_total', { outcome: 'retrying' })).toBe(1);
    expect(failed.value('restsmith_webhook_attempts_total', { outcome: 'failed' })).toBe(1);
    expect(failed.value('restsmith_webhook_attempts_total', { outcome: 'delivered' })).toBe(0);
    expect(attempts).toHaveLength(2);
  });

  it('count the event streams open', async () => {
    expect((await metrics()).value('restsmith_event_streams_open')).toBe(0);
    const bearer = await token('streamer');
    let request: ClientRequest | undefined;
    await new Promise<void>((opened, failed) => {
      const headers = { authorization: `Bearer ${bearer}` };
      request = get(`${url}/api/events/stream`, { agent: false, headers }, (response) => {
        if (response.statusCode !== 200) failed(new Error(`the stream answered ${response.statusCode}`));
        // its first lines (`retry:`) are written once it is open
        response.once('data', () => opened());
      });
      request.on('error', failed);
    });
    expect((await metrics()).value('restsmith_event_streams_open')).toBe(1);
    request?.destroy();
    await metricsUntil('the stream closed', (scraped) => scraped.value('restsmith_event_streams_open') === 0);
  });

  it('count the requests the rate limit refused', async () => {
    const spammer = as(await token('spammer'));
    const refused = { reason: 'rate_limit' };
    const before = await metrics();
    const statuses: number[] = [];
    for (let i = 0; i < 22; i += 1) statuses.push((await spammer('GET', `${url}/api/alerts?limit=1`)).status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
    const after = await metrics();
    expect(
      (after.value('restsmith_requests_refused_total', refused) ?? 0) -
        (before.value('restsmith_requests_refused_total', refused) ?? 0),
    ).toBe(2);
    const limited = { method: 'GET', route: '/api/alerts', status: '429' };
    expect(
      (after.value('http_requests_total', limited) ?? 0) - (before.value('http_requests_total', limited) ?? 0),
    ).toBe(2);
  });

  it('count the statements the database refused: a unique key taken', async () => {
    const writer = as(await token('coder'));
    const before = await metrics();
    expect((await writer('POST', `${url}/api/orders`, { note: 'a', code: 'A-1' })).status).toBe(201);
    const taken = await writer('POST', `${url}/api/orders`, { note: 'b', code: 'A-1' });
    expect(taken.status, taken.text).toBe(409);
    const after = await metrics();
    const failed = (scraped: Scrape, reason: string): number =>
      scraped.value('restsmith_db_statements_failed_total', { reason }) ?? NaN;
    expect(failed(after, 'constraint') - failed(before, 'constraint')).toBe(1);
    expect(failed(after, 'error')).toBe(failed(before, 'error'));
    expect(after.types.get('restsmith_db_statements_failed_total')).toBe('counter');
  });

  it('say each pool’s size, and what is in use and waiting', async () => {
    const scraped = await metrics();
    expect(scraped.value('restsmith_db_pool_max', { pool: 'scan' })).toBeGreaterThanOrEqual(1);
    expect(scraped.value('restsmith_db_pool_in_use', { pool: 'scan' })).toBe(0);
    if (!ON_POSTGRES) {
      // SQLite's own connection runs one statement at a time on the thread that answers the scrape
      expect(scraped.find('restsmith_db_pool_max', { pool: 'main' })).toEqual([]);
      return;
    }
    expect(scraped.value('restsmith_db_pool_max', { pool: 'main' })).toBe(2);
    const reader = as(await token('waiter'));
    const created = await reader('POST', `${url}/api/orders`, { note: 'locked' });
    const id = (created.body as { id: string }).id;
    // a transaction of this test holds the table: three reads of it wait, two on the pool's connections, one for one
    const locker = new pg.Client({ connectionString: databaseUrlOf });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "orders" IN ACCESS EXCLUSIVE MODE');
      const reads = [1, 2, 3].map(() => reader('GET', `${url}/api/orders/${id}`));
      const busy = await metricsUntil(
        'the pool taken',
        (s) =>
          s.value('restsmith_db_pool_in_use', { pool: 'main' }) === 2 &&
          (s.value('restsmith_db_pool_waiting', { pool: 'main' }) ?? 0) >= 1,
      );
      expect(busy.value('restsmith_db_pool_in_use', { pool: 'main' })).toBe(2);
      // a scrape answers while every connection is taken: what it reads of the database waits 250 ms at most
      const started = Date.now();
      const during = await metrics();
      expect(Date.now() - started).toBeLessThan(2000);
      expect(during.value('restsmith_events_newest_seq')).toBe(busy.value('restsmith_events_newest_seq'));
      await locker.query('COMMIT');
      expect((await Promise.all(reads)).map((read) => read.status)).toEqual([200, 200, 200]);
    } finally {
      await locker.end();
    }
    await metricsUntil(
      'the pool free',
      (s) =>
        s.value('restsmith_db_pool_in_use', { pool: 'main' }) === 0 &&
        s.value('restsmith_db_pool_waiting', { pool: 'main' }) === 0,
    );
  });
});
