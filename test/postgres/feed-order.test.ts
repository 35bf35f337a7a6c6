import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Bound, Database } from '../../runtime/src/db/database.js';
import { openPostgres } from '../../runtime/src/db/postgres.js';
import { EventFeed, type EventSource } from '../../runtime/src/events/feed.js';
import { EventLog } from '../../runtime/src/events/log.js';
import { BARRIER_WAIT_MS } from '../../runtime/src/events/settled.js';
import { StreamHub } from '../../runtime/src/events/stream.js';
import { EVENT_TABLES } from '../../src/migrate/system-tables.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * SPEC §10 "Scale of the feed": writes with events on two instances (two pools on one database, each with its own
 * EventLog and EventFeed, as two servers have) commit in parallel, and a reader of the feed still never misses an
 * event, nor sees one out of order (events/settled.ts).
 */

const SOURCES: EventSource[] = [{ resource: 'notes', types: ['notes.created'], read: { public: true } }];
const EVERY = { every: ',notes.created,', owned: ',,', needle: null, all: true, actors: 'every' } as const;

interface Instance {
  db: Database;
  log: EventLog;
  feed: EventFeed;
}

let url: string;
let own: pg.Client;
let one: Instance;
let two: Instance;

const instance = (): Instance => {
  const db = openPostgres(url, 6);
  return { db, log: new EventLog(db), feed: new EventFeed(db, SOURCES, 'admin', '7d') };
};
const change = (id: string) => ({ recordId: id, version: 1, record: { id }, owners: [] });
const eventRow = (at: Instance, id: string): Bound =>
  at.log.eventRow('notes', 'created', new Date().toISOString(), null, change(id));
const sleep = (at: Instance, seconds: number): Bound => ({
  statement: at.db.prepareText(`SELECT pg_sleep(${seconds})`),
  values: [],
});

/** The ids of the events after `after` the feed shows, and the cursor to read on from. */
async function read(at: Instance, after: number): Promise<{ ids: string[]; seqs: number[]; next: number }> {
  const page = await at.feed.page(EVERY, after, 100);
  const events = page.events.map((e) => ({ seq: e.seq, id: (JSON.parse(e.text) as { recordId: string }).recordId }));
  const next = page.nextCursor !== null ? Number(page.nextCursor) : (events.at(-1)?.seq ?? after);
  return { ids: events.map((e) => e.id), seqs: events.map((e) => e.seq), next };
}
/** The ids of the events committed after `start`, in seq order, read straight from the table (no barrier). */
async function committedAfter(start: number): Promise<string[]> {
  const sql = `SELECT event::json ->> 'recordId' AS id FROM restsmith_events WHERE seq > $1 ORDER BY seq`;
  return (await own.query<{ id: string }>(sql, [start])).rows.map((row) => row.id);
}
const newest = async (): Promise<number> =>
  Number((await own.query('SELECT coalesce(max(seq), 0) AS n FROM restsmith_events')).rows[0].n);

beforeAll(async () => {
  url = await databaseUrl('feed-order');
  own = new pg.Client({ connectionString: url });
  await own.connect();
  for (const statement of EVENT_TABLES.postgres) await own.query(statement);
  one = instance();
  two = instance();
});
afterAll(async () => {
  await Promise.all([one?.db.close(), two?.db.close()]);
  await own?.end();
});
beforeEach(async () => {
  await own.query('DROP TRIGGER IF EXISTS slow_event ON restsmith_events');
});

describe('writes with events on two instances', () => {
  it('do not wait for each other: one commits while the other holds its transaction open', async () => {
    const start = await newest();
    // instance one draws its seq, then keeps its transaction open for a second
    const held = one.db.inTransaction(function* () {
      yield eventRow(one, 'held');
      yield sleep(one, 1);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // the old exclusive commit-order lock made this wait for the second
    const begun = Date.now();
    await two.log.append('notes', 'created', change('quick'), null);
    const took = Date.now() - begun;
    expect(took).toBeLessThan(500);

    // the quick one committed with the larger seq: a reader of either instance shows neither yet (it waits
    // BARRIER_WAIT_MS at most for the held one, then keeps to the bound it knew), never the quick one alone
    const read1 = Date.now();
    const early = await Promise.all([read(one, start), read(two, start)]);
    expect(Date.now() - read1).toBeLessThan(BARRIER_WAIT_MS + 400);
    expect(early.map((page) => page.ids)).toEqual([[], []]);
    // what a reader with no barrier would have shown: the commits did come out of seq order
    expect(await committedAfter(start)).toEqual(['quick']);

    await held;
    const late = await Promise.all([read(one, start), read(two, start)]);
    expect(late.map((page) => page.ids)).toEqual([
      ['held', 'quick'],
      ['held', 'quick'],
    ]);
  });

  it('are not held up by a reader of an idle feed: a poll that finds nothing new takes no lock', async () => {
    const start = await newest();
    await read(one, start);
    // a write in flight, and nothing committed since the reader's last bound
    const held = two.db.inTransaction(function* () {
      yield eventRow(two, 'idle-held');
      yield sleep(two, 0.6);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const begun = Date.now();
    expect((await read(one, start)).ids).toEqual([]);
    // a barrier would have waited for the write in flight (BARRIER_WAIT_MS), and held up new writers meanwhile
    expect(Date.now() - begun).toBeLessThan(BARRIER_WAIT_MS / 2);
    await held;
    expect((await read(one, start)).ids).toEqual(['idle-held']);
  });

  it('are not held up by a reader catching up: its whole pages come through the bound known, with no barrier', async () => {
    const start = await newest();
    for (const id of ['c1', 'c2', 'c3']) await one.log.append('notes', 'created', change(id), null);
    await read(one, start);
    // a write in flight, and one committed after it: the feed's newest is past the bound known
    const held = two.db.inTransaction(function* () {
      yield eventRow(two, 'c-held');
      yield sleep(two, 0.6);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await one.log.append('notes', 'created', change('c-quick'), null);
    const begun = Date.now();
    const page = await one.feed.page(EVERY, start, 2);
    expect(Date.now() - begun).toBeLessThan(BARRIER_WAIT_MS / 2);
    expect(page.events.map((e) => (JSON.parse(e.text) as { recordId: string }).recordId)).toEqual(['c1', 'c2']);
    await held;
    expect((await read(one, start)).ids).toEqual(['c1', 'c2', 'c3', 'c-held', 'c-quick']);
  });

  it('never make a reader skip an event, miss one or see one twice, out of order', async () => {
    // each event waits a little after it drew its seq, before its transaction commits (as a slow disk would)
    await own.query(`CREATE OR REPLACE FUNCTION slow_event() RETURNS trigger AS $$
      BEGIN PERFORM pg_sleep(random() * 0.004); RETURN NULL; END $$ LANGUAGE plpgsql`);
    await own.query(`CREATE TRIGGER slow_event AFTER INSERT ON restsmith_events
      FOR EACH ROW EXECUTE FUNCTION slow_event()`);
    const start = await newest();
    const until = Date.now() + 2_000;
    let writing = true;
    // four writers on each instance: one-statement events, two-statement transactions, and some rolled back (a gap)
    const writers = Array.from({ length: 8 }, async (_, w) => {
      const at = w % 2 === 0 ? one : two;
      for (let i = 0; i < 200 && Date.now() < until; i += 1) {
        const id = `w${w}-${i}`;
        if (i % 3 === 0) await at.log.append('notes', 'created', change(id), null);
        else if (i % 7 === 0) {
          const undone = at.db.inTransaction(function* () {
            yield eventRow(at, `${id}-undone`);
            yield { statement: at.db.prepareText('SELECT 1 / 0'), values: [] };
          });
          await expect(undone).rejects.toThrow();
        } else {
          await at.db.inTransaction(function* () {
            yield eventRow(at, id);
            yield sleep(at, 0.002);
          });
        }
      }
    });
    // a reader on each instance, polling while they write
    const followed: string[][] = [[], []];
    const readers = [one, two].map(async (at, r) => {
      let after = start;
      for (let round = 0; round < 5_000; round += 1) {
        const done = !writing;
        const page = await read(at, after);
        // every page is in seq order, and starts after what the reader had
        expect(page.seqs).toEqual([...page.seqs].sort((a, b) => a - b));
        if (page.seqs.length > 0) expect(page.seqs[0]).toBeGreaterThan(after);
        followed[r]?.push(...page.ids);
        after = page.next;
        if (done && page.ids.length === 0) return;
      }
    });
    await Promise.all(writers);
    writing = false;
    await Promise.all(readers);
    const committed = await committedAfter(start);
    expect(committed.length).toBeGreaterThan(100);
    expect(committed.some((id) => id.endsWith('-undone'))).toBe(false);
    expect(followed).toEqual([committed, committed]);
  });

  it('reach a stream once a write held open commits, though no newer event announces them', async () => {
    const start = await newest();
    const hub = new StreamHub(one.db, one.feed, one.log, 10);
    let sent = '';
    const body = hub.open(EVERY, start, { client: 'c', hangUp: () => undefined });
    body.on('data', (chunk: Buffer) => (sent += chunk.toString()));
    try {
      // instance two draws a seq and holds it 1.5 s: the stream's polls meanwhile find its barrier given up
      const held = two.db.inTransaction(function* () {
        yield eventRow(two, 'held');
        yield sleep(two, 1.5);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await one.log.append('notes', 'created', change('quick'), null);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(sent).not.toContain('"recordId":"quick"');
      await held;
      // the next poll (within a second) passes the barrier and sends both, in seq order
      const until = Date.now() + 3_000;
      while (!sent.includes('"recordId":"quick"') && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const ids = [...sent.matchAll(/"recordId":"([^"]+)"/g)].map((m) => m[1]);
      expect(ids).toEqual(['held', 'quick']);
    } finally {
      hub.close();
    }
  });
});
