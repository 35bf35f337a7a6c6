import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, runSql } from '../helpers/database.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import {
  generateFresh,
  http,
  loadBuilt,
  startServer,
  typecheckAndBuild,
  WORK,
  type RunningServer,
} from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * SPEC §11 "Poolers": two instances of a generated server behind PgBouncer in transaction mode, with
 * DATABASE_POOLER=transaction, started together (both migrate), under a bounded mixed load — writes with events,
 * reads of each record through the other instance, listings served by a trigram index and listings that scan (the
 * scan pool), reads of the feed — while a webhook subscription is delivered to a receiver here and an SSE stream is
 * read. No answer is a 5xx, every acknowledged write reads back, the stream and the receiver see every event's seq.
 * PgBouncer holds 8 server connections for the instances' 30 or so: transactions of both share them.
 */
const DEFINITION = `
name: pooled
version: 1.0.0
events:
  webhooks: true
  retry: { attempts: 5, firstDelay: 200ms }
resources:
  notes:
    fields:
      title: { type: string, required: true, maxLength: 200, index: trigram }
      body: text
      count: { type: integer, default: 0 }
    access: { list: public, read: public, create: public, update: public, delete: public }
`;

const WORKERS = 8;
const ROUNDS = 40;

let bouncer: PgBouncer;
let direct: string;
let dir: string;
let a: RunningServer;
let b: RunningServer;
let receiver: Server;
let receiverUrl: string;
/** the seq of each event the receiver was sent, with how many times */
const delivered = new Map<number, number>();

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { seq } = JSON.parse(body) as { seq: number };
      delivered.set(seq, (delivered.get(seq) ?? 0) + 1);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/hook`;

  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'pooled.yaml');
  writeFileSync(file, DEFINITION);
  dir = await generateFresh(file, 'pg-pooled');
  await typecheckAndBuild(dir);
  direct = await databaseUrl('pooled');
  bouncer = await startPgBouncer(direct, 'transaction');
  const env = {
    DATABASE_URL: bouncer.through(direct),
    DATABASE_POOLER: 'transaction',
    DATABASE_POOL_SIZE: '10',
    // every worker of this test is one client (127.0.0.1): no listing that scans is refused for its share
    DATABASE_SCAN_PER_CLIENT: '64',
    DATABASE_SCAN_QUEUE: '64',
    JWT_SECRET: SECRET,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // what is tested is the pooler, not the pressure valve: a busy shared machine would have it answer 503 at once
    MAX_EVENT_LOOP_DELAY: '0',
  };
  // started together: both migrate the empty database, under the migration lock of a transaction
  [a, b] = await Promise.all([startServer(dir, env), startServer(dir, env)]);
}, 240_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await bouncer?.stop();
  await new Promise((closed) => receiver?.close(closed));
});

interface Note {
  id: string;
  title: string;
  count: number;
}
interface FeedEvent {
  seq: number;
  type: string;
  recordId: string;
}

/** A stream of `server`'s events, read as they come, with when each came; `stop` ends it. */
function follow(server: RunningServer): { events: { seq: number; at: number }[]; stop: () => void } {
  const events: { seq: number; at: number }[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ seq: Number(event.id), at: Date.now() }) });
  const request = get(`${server.url}/events/stream`, { agent: false }, (response) => {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => parser.feed(chunk));
  });
  request.on('error', () => undefined);
  return { events, stop: () => request.destroy() };
}

async function waitFor(what: string, done: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

/** Every event of the feed, through `server`, oldest first. */
async function feed(server: RunningServer): Promise<FeedEvent[]> {
  const all: FeedEvent[] = [];
  for (let after = 0; ;) {
    const page = await http('GET', `${server.url}/events?after=${after}&limit=100`);
    expect(page.status, page.text).toBe(200);
    const { items, nextCursor } = page.body as { items: FeedEvent[]; nextCursor: string | null };
    all.push(...items);
    if (nextCursor === null) return all;
    after = Number(nextCursor);
  }
}

describe('two instances behind PgBouncer in transaction mode (DATABASE_POOLER=transaction)', () => {
  it('migrated the database exactly once, though both started on it together', async () => {
    expect(await runSql(direct, dir, 'SELECT name FROM restsmith_migrations')).toHaveLength(1);
  });

  it('answers a bounded mixed load with no error, and loses no write, no event and no delivery', async () => {
    const admin = as(await token('root', { roles: ['admin'] }));
    const hook = await admin('POST', `${a.url}/webhooks`, { url: receiverUrl });
    expect(hook.status, hook.text).toBe(201);
    const stream = follow(b);
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    const call = async (method: string, url: string, body?: unknown) => {
      const answer = await http(method, url, body);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 300) failures.push(`${method} ${url}: ${answer.status} ${answer.text.slice(0, 200)}`);
      return answer;
    };
    /** each note acknowledged, as its last acknowledged write left it, and when that was */
    const written = new Map<string, { note: Note; at: number }>();
    const worker = async (w: number): Promise<void> => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const [one, other] = (w + round) % 2 === 0 ? [a, b] : [b, a];
        const title = `note w${w}r${round} of the pooled load`;
        const created = await call('POST', `${one.url}/notes`, { title, body: `written by w${w}` });
        if (created.status !== 201) continue;
        const note = created.body as Note;
        written.set(note.id, { note, at: Date.now() });
        const read = await call('GET', `${other.url}/notes/${note.id}`);
        expect(read.body).toEqual(note);
        const patched = await call('PATCH', `${other.url}/notes/${note.id}`, { count: round + 1 });
        if (patched.status === 200) written.set(note.id, { note: patched.body as Note, at: Date.now() });
        const found = await call('GET', `${one.url}/notes?title[contains]=w${w}r${round}%20`);
        expect((found.body as { items: Note[] }).items.map((n) => n.id)).toEqual([note.id]);
        // body has no index: a listing that scans, on the scan pool
        await call('GET', `${other.url}/notes?body[contains]=by%20w${w}&limit=5`);
        await call('GET', `${one.url}/notes?limit=10&sort=-count`);
        if (round % 5 === 0) await call('GET', `${other.url}/events?limit=20`);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    expect(failures).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual([200, 201]);
    expect(written.size).toBe(WORKERS * ROUNDS);
    // every acknowledged write reads back as acknowledged, through either instance
    for (const { note } of written.values())
      for (const server of [a, b]) expect((await http('GET', `${server.url}/notes/${note.id}`)).body).toEqual(note);

    // the feed: one event a write, in seq order, none missing
    const events = await feed(a);
    expect(events).toHaveLength(2 * WORKERS * ROUNDS);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(
      events
        .filter((e) => e.type === 'notes.updated')
        .map((e) => e.recordId)
        .sort(),
    ).toEqual([...written.keys()].sort());
    expect(await feed(b)).toEqual(events);

    // the stream on b saw every one, in order, once; the receiver was sent every one
    await waitFor('the stream to reach the newest event', () => stream.events.at(-1)?.seq === seqs.at(-1));
    stream.stop();
    expect(stream.events.map((e) => e.seq)).toEqual(seqs);
    await waitFor('every event delivered', () => seqs.every((seq) => delivered.has(seq)));
    const settled = async () =>
      (await runSql(direct, dir, `SELECT status, count(*)::int AS n FROM restsmith_deliveries GROUP BY status`)) as {
        status: string;
        n: number;
      }[];
    await waitFor('the delivery log to say so', async () => {
      const log = await settled();
      return log.length === 1 && log[0]?.status === 'delivered';
    });
    expect(await settled()).toEqual([{ status: 'delivered', n: events.length }]);

    // how late the stream on b saw each note's last write (its PATCH), acknowledged by a or by b (b polls once a second)
    const seen = new Map(stream.events.map((e) => [e.seq, e.at]));
    const lateness = [...written.values()]
      .map(({ note, at }) => {
        const event = events.find((e) => e.recordId === note.id && e.type === 'notes.updated');
        return (seen.get(event?.seq ?? -1) ?? Infinity) - at;
      })
      .sort((x, y) => x - y);
    expect(lateness.at(-1)).toBeLessThan(5000);
    const duplicates = [...delivered.values()].filter((count) => count > 1).length;
    console.log(
      `pooler: ${[...statuses.values()].reduce((x, y) => x + y, 0)} requests, ${events.length} events, ` +
        `${duplicates} deliveries sent twice; the stream saw a write ${lateness[Math.floor(lateness.length / 2)]} ms ` +
        `after its answer (median), ${lateness.at(-1)} ms at most`,
    );
    for (const server of [a, b]) expect((await http('GET', `${server.url}/healthz`)).status).toBe(200);
  }, 180_000);

  it('sets the statement timeout in each transaction, and leaves none in the backends PgBouncer shares', async () => {
    interface OpenModule {
      openDatabase: (
        url: string,
        poolSize?: number,
        timeoutMs?: number,
        scans?: { slots: number; queue: number; perClient: number },
        pooler?: 'session' | 'transaction',
      ) => {
        prepareText: (text: string) => {
          get: (params: readonly unknown[]) => Promise<Record<string, unknown> | undefined>;
        };
        close: () => Promise<void>;
      };
    }
    const { openDatabase } = await loadBuilt<OpenModule>(join(dir, 'dist'), 'db/open.js');
    const db = openDatabase(bouncer.through(direct), 2, 300, { slots: 1, queue: 1, perClient: 1 }, 'transaction');
    try {
      expect(await db.prepareText(`SELECT current_setting('statement_timeout') AS "t"`).get([])).toEqual({
        t: '300ms',
      });
      const started = Date.now();
      const error = await db
        .prepareText('SELECT pg_sleep(5)')
        .get([])
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((error as Error).name).toBe('DatabaseUnavailableError');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await db.close();
    }
    // a client of its own through PgBouncer gets backends the server used: none of them kept a timeout, or a statement
    const client = new pg.Client({ connectionString: bouncer.through(direct) });
    await client.connect();
    try {
      for (let i = 0; i < 16; i += 1) {
        const { rows } = await client.query<{ t: string; n: string }>(
          `SELECT current_setting('statement_timeout') AS t, (SELECT count(*) FROM pg_prepared_statements) AS n`,
        );
        expect(rows[0]).toEqual({ t: '0', n: '0' });
      }
    } finally {
      await client.end();
    }
  });
});
