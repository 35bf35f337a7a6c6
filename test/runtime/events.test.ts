import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { EventFeed, type EventSource } from '../../runtime/src/events/feed.js';
import { EventLog } from '../../runtime/src/events/log.js';
import { loggedWrite } from '../../runtime/src/events/logged.js';
import { Retention } from '../../runtime/src/events/retention.js';
import { BUFFER_LIMIT, HEARTBEAT_MS, runAt, StreamHub } from '../../runtime/src/events/stream.js';
import { EVENT_TABLES, renamedEvents, webhookTables } from '../../src/migrate/system-tables.js';

const SOURCES: EventSource[] = [
  { resource: 'notes', types: ['notes.created', 'notes.deleted'], read: { owner: true }, owner: (subject) => subject },
  { resource: 'posts', types: ['posts.created'], read: { public: true } },
  { resource: 'audits', types: ['audits.created'], read: { roles: ['auditor'] } },
];

let db: Database;
let log: EventLog;
let feed: EventFeed;

beforeEach(async () => {
  db = openSqlite(':memory:');
  for (const statement of EVENT_TABLES.sqlite) await db.prepareText(statement).run([]);
  log = new EventLog(db);
  feed = new EventFeed(db, SOURCES, 'admin', '7d');
});
afterEach(async () => db.close());

const note = (id: string, owners: string[]) => ({ recordId: id, version: 1, record: { id }, owners });

describe('the feed of one caller', () => {
  it.each([
    { who: 'anonymous', caller: undefined, sees: ['posts.created p1'] },
    {
      who: 'alice',
      caller: { subject: 'alice', roles: [] },
      sees: ['notes.created n1', 'posts.created p1', 'notes.deleted n1'],
    },
    {
      who: 'bob, an owner of n2 beside carol',
      caller: { subject: 'bob', roles: [] },
      sees: ['posts.created p1', 'notes.created n2'],
    },
    {
      who: 'an auditor',
      caller: { subject: 'al', roles: ['auditor'] },
      sees: ['posts.created p1', 'audits.created a1'],
    },
    {
      who: 'a subject holding the separator',
      caller: { subject: 'alice\x1fbob', roles: [] },
      sees: ['posts.created p1'],
    },
    {
      who: 'the administrator',
      caller: { subject: 'root', roles: ['admin'] },
      sees: ['notes.created n1', 'posts.created p1', 'notes.deleted n1', 'audits.created a1', 'notes.created n2'],
    },
  ])('$who', async ({ caller, sees }) => {
    await log.append('notes', 'created', note('n1', ['alice']), 'alice');
    await log.append('posts', 'created', { ...note('p1', []) }, 'editor');
    await log.append('notes', 'deleted', { ...note('n1', ['alice']), record: null }, 'alice');
    await log.append('audits', 'created', note('a1', []), null);
    await log.append('notes', 'created', note('n2', ['carol', 'bob']), 'carol');
    const visibility = feed.visibility(caller, feed.typesOf(undefined));
    const page = await feed.page(visibility, undefined, 100);
    const seen = page.events.map((e) => JSON.parse(e.text) as { type: string; recordId: string; actor: string | null });
    expect(seen.map((e) => `${e.type} ${e.recordId}`)).toEqual(sees);
    // the actor: the administrator's to see, and one's own
    for (const event of seen) {
      if (caller?.roles.includes('admin') !== true) expect([null, caller?.subject]).toContain(event.actor);
    }
  });

  it('shows a subject that is no integer id its own records of string owners beside a resource of integer ids (found by a reviewer)', async () => {
    const users: EventSource = {
      resource: 'users',
      types: ['users.created'],
      read: { owner: true },
      owner: (subject) => (/^[1-9][0-9]{0,14}$/.test(subject) ? Number(subject) : -1),
    };
    // the integer resource first: its owner value for "alice" (-1) once took the needle, and hid her notes
    const mixed = new EventFeed(db, [users, ...SOURCES], 'admin', '7d');
    await log.append('users', 'created', note('7', ['7']), null);
    await log.append('notes', 'created', note('n1', ['alice']), 'alice');
    const page = await mixed.page(
      mixed.visibility({ subject: 'alice', roles: [] }, mixed.typesOf(undefined)),
      undefined,
      10,
    );
    expect(page.events.map((e) => JSON.parse(e.text).recordId)).toEqual(['n1']);
    const seven = await mixed.page(
      mixed.visibility({ subject: '7', roles: [] }, mixed.typesOf(undefined)),
      undefined,
      10,
    );
    expect(seven.events.map((e) => JSON.parse(e.text).recordId)).toEqual(['7']);
  });

  it('pages past a window of events the caller may not see, a bounded scan at a time', async () => {
    for (let i = 0; i < 1500; i += 1) await log.append('notes', 'created', note(`x${i}`, ['someone']), null);
    await log.append('notes', 'created', note('mine', ['alice']), 'alice');
    const visibility = feed.visibility({ subject: 'alice', roles: [] }, feed.typesOf(undefined));
    const first = await feed.page(visibility, undefined, 10);
    expect(first.events).toEqual([]);
    expect(first.nextCursor).toBe('1000');
    const second = await feed.page(visibility, Number(first.nextCursor), 10);
    expect(second.events.map((e) => JSON.parse(e.text).recordId)).toEqual(['mine']);
    expect(second.nextCursor).toBeNull();
  });

  it('refuses types it does not know, naming those it does', () => {
    expect(() => feed.typesOf('notes,nope')).toThrow(
      /"nope" is neither a resource nor an event type; known: notes, posts, audits/,
    );
    expect([...feed.typesOf('posts, notes.deleted')]).toEqual(['posts.created', 'notes.deleted']);
  });

  it("names each entry of a webhook's types that would never match: a list in one, a space, an unknown name (issue 56)", () => {
    expect(feed.entryErrors(['posts', 'notes.deleted'])).toEqual([]);
    expect(feed.entryErrors(['posts,notes', 'audits', ' notes', 'nope'])).toEqual([
      { path: '/types/0', message: expect.stringMatching(/^"posts,notes" is one resource or event type, not a list;/) },
      { path: '/types/2', message: expect.stringMatching(/^" notes" is neither a resource nor an event type;/) },
      { path: '/types/3', message: expect.stringMatching(/^"nope" is neither a resource nor an event type;/) },
    ]);
  });
});

describe('a renamed resource (renamedFrom)', () => {
  it('tells a `types` naming its old name the new one', () => {
    const renamed = new EventFeed(db, SOURCES, 'admin', '7d', { memos: 'notes' });
    expect(() => renamed.typesOf('posts,memos')).toThrow(
      /"memos" was renamed: the resource memos is now notes.*"notes"/,
    );
    expect(() => renamed.typesOf('memos.deleted')).toThrow(/ask for "notes\.deleted"/);
    // a type the new resource does not have is unknown, as any other
    expect(() => renamed.typesOf('memos.archived')).toThrow(/neither a resource nor an event type/);
    expect(() => feed.typesOf('memos')).toThrow(/neither a resource nor an event type/);
  });

  it('serves its past events, and the deliveries still to make, under the new name once migrated', async () => {
    for (const statement of webhookTables('sqlite')) await db.prepareText(statement).run([]);
    await log.append('memos', 'created', note('m1', ['alice']), 'alice');
    await log.append('posts', 'created', note('p1', []), null);
    await log.append('memos', 'deleted', { ...note('m1', ['alice']), record: null }, 'alice');
    const at = '2030-01-01T00:00:00.000Z';
    const subscribe = `INSERT INTO restsmith_webhooks (id, url, types, enabled, secret, cursor, created_at, updated_at) VALUES (?, 'https://x.example/', ?, 1, 's', 0, ?, ?)`;
    await db.prepareText(subscribe).run(['w', JSON.stringify(['memos', 'posts.created', 'memos.deleted']), at, at]);
    const fanOut = `INSERT INTO restsmith_deliveries (webhook_id, seq, type, event, status, created_at, updated_at)
      SELECT 'w', seq, type, '{"seq":' || seq || ',' || substr(event, 2), CASE seq WHEN 1 THEN 'delivered' ELSE 'pending' END, ?, ? FROM restsmith_events`;
    await db.prepareText(fanOut).run([at, at]);
    const before = await feed.page(
      feed.visibility({ subject: 'root', roles: ['admin'] }, feed.typesOf(undefined)),
      undefined,
      10,
    );
    expect(before.events.map((e) => e.seq)).toEqual([2]);

    for (const statement of renamedEvents('memos', 'notes', true)) await db.prepareText(statement).run([]);
    const after = await feed.page(
      feed.visibility({ subject: 'alice', roles: [] }, feed.typesOf('notes')),
      undefined,
      10,
    );
    const events = after.events.map((e) => JSON.parse(e.text) as Record<string, unknown>);
    expect(events.map((e) => [e.type, e.resource, e.recordId, e.actor])).toEqual([
      ['notes.created', 'notes', 'm1', 'alice'],
      ['notes.deleted', 'notes', 'm1', 'alice'],
    ]);
    // the rest of the text is as it was written
    const rows = await db.prepareText('SELECT type, event FROM restsmith_events ORDER BY seq').all([]);
    expect(rows.map((r) => r.type)).toEqual(['notes.created', 'posts.created', 'notes.deleted']);
    expect(JSON.parse(String(rows[0]?.event))).toMatchObject({ version: 1, data: { id: 'm1' } });
    const deliveries = await db.prepareText('SELECT seq, type, event FROM restsmith_deliveries ORDER BY seq').all([]);
    // the one delivered stays as it was sent; those to make are sent under the new name
    expect(
      deliveries.map((d) => [d.seq, d.type, (JSON.parse(String(d.event)) as { resource: string }).resource]),
    ).toEqual([
      [1, 'memos.created', 'memos'],
      [2, 'posts.created', 'posts'],
      [3, 'notes.deleted', 'notes'],
    ]);
    expect(JSON.parse(String(deliveries[2]?.event))).toMatchObject({ seq: 3, type: 'notes.deleted', recordId: 'm1' });
    const [webhook] = await db.prepareText('SELECT types FROM restsmith_webhooks').all([]);
    expect(JSON.parse(String(webhook?.types))).toEqual(['notes', 'posts.created', 'notes.deleted']);
  });
});

describe('the retention', () => {
  it('removes old events, moves the horizon, keeps the newest, and never reuses a seq', async () => {
    for (let i = 0; i < 5; i += 1) await log.append('posts', 'created', note(`p${i}`, []), null);
    const retention = new Retention(db, 60_000);
    // an hour from now, all five are old: all but the newest go
    expect(await retention.prune(Date.now() + 3_600_000)).toBe(4);
    const visibility = feed.visibility(undefined, feed.typesOf(undefined));
    await expect(feed.page(visibility, 3, 10)).rejects.toMatchObject({ status: 410 });
    expect((await feed.page(visibility, undefined, 10)).events.map((e) => e.seq)).toEqual([5]);
    await log.append('posts', 'created', note('p5', []), null);
    expect((await feed.page(visibility, 4, 10)).events.map((e) => e.seq)).toEqual([5, 6]);
  });
});

describe('the retention of deliveries', () => {
  it('removes delivered and failed deliveries older than the retention, never a pending one', async () => {
    for (const statement of webhookTables('sqlite')) await db.prepareText(statement).run([]);
    await db
      .prepareText(
        `INSERT INTO restsmith_webhooks (id, url, enabled, secret, cursor, created_at, updated_at) VALUES ('w', 'https://x.example/', 1, 's', 0, 'then', 'then')`,
      )
      .run([]);
    const old = '2000-01-01T00:00:00.000Z';
    for (const [seq, status] of [
      [1, 'delivered'],
      [2, 'failed'],
      [3, 'pending'],
    ] as const) {
      await db
        .prepareText(
          `INSERT INTO restsmith_deliveries (webhook_id, seq, type, event, status, created_at, updated_at) VALUES ('w', ?, 't', '{}', ?, ?, ?)`,
        )
        .run([seq, status, old, old]);
    }
    await new Retention(db, 60_000, true).prune();
    const left = await db.prepareText('SELECT seq, status FROM restsmith_deliveries').all([]);
    expect(left).toEqual([{ seq: 3, status: 'pending' }]);
  });
});

describe('a stream', () => {
  it('sends a heartbeat comment every 15 s, and stops its timers when the last stream goes', async () => {
    vi.useFakeTimers();
    try {
      const hub = new StreamHub(db, feed, log, 10);
      const body = hub.open(feed.visibility(undefined, feed.typesOf(undefined)), 0, {
        client: 'c',
        hangUp: () => undefined,
      });
      let text = '';
      body.on('data', (chunk: Buffer) => (text += chunk.toString()));
      await vi.advanceTimersByTimeAsync(HEARTBEAT_MS - 1);
      expect(text).not.toContain(': heartbeat');
      await vi.advanceTimersByTimeAsync(1);
      expect(text).toContain(': heartbeat\n\n');
      expect(vi.getTimerCount()).toBeGreaterThan(0);
      body.destroy();
      await vi.advanceTimersByTimeAsync(200);
      expect(hub.size).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits for a client that reads: a catch-up well over BUFFER_LIMIT reaches it whole (found in issue 56)', async () => {
    const hub = new StreamHub(db, feed, log, 10);
    const big = 'x'.repeat(50_000);
    for (let i = 0; i < 60; i += 1)
      await log.append('posts', 'created', { ...note(`p${i}`, []), record: { big } }, null);
    const body = hub.open(feed.visibility(undefined, feed.typesOf(undefined)), 0, {
      client: 'fast',
      hangUp: () => undefined,
    });
    let text = '';
    let most = 0;
    body.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      most = Math.max(most, body.writableLength + body.readableLength);
    });
    for (let waited = 0; (text.match(/^id: /gm) ?? []).length < 60 && waited < 5000; waited += 20)
      await new Promise((later) => setTimeout(later, 20));
    expect(text.length).toBeGreaterThan(3 * BUFFER_LIMIT - 200_000);
    expect((text.match(/^id: /gm) ?? []).length).toBe(60);
    expect(text).not.toContain('reads too slowly');
    expect(most).toBeLessThan(200_000);
    expect(hub.size).toBe(1);
    hub.close();
  });

  it('drops a client that takes nothing for stallMs, holding a bounded part of its catch-up meanwhile', async () => {
    const hub = new StreamHub(db, feed, log, 10, 300);
    const big = 'x'.repeat(50_000);
    let hungUp = false;
    const body = hub.open(feed.visibility(undefined, feed.typesOf(undefined)), 0, {
      client: 'slow',
      hangUp: () => (hungUp = true),
    });
    // nobody reads `body`: the hub stops writing to it at its high-water mark, then gives up on it
    for (let i = 0; i < 40; i += 1)
      await log.append('posts', 'created', { ...note(`p${i}`, []), record: { big } }, null);
    await new Promise((settled) => setTimeout(settled, 100));
    expect(body.writableEnded).toBe(false);
    expect(body.writableLength + body.readableLength).toBeLessThan(200_000);
    await new Promise((settled) => setTimeout(settled, 400));
    expect(body.writableEnded).toBe(true);
    expect(hub.size).toBe(0);
    let text = '';
    body.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await new Promise((ended) => body.on('end', ended));
    expect(text.length).toBeLessThan(200_000);
    expect(text.endsWith(': this client reads too slowly: reconnect with Last-Event-ID\n\n')).toBe(true);
    // its connection is closed after a grace, read or not
    expect(hungUp).toBe(false);
    hub.close();
  });

  it('ends with a retry: hint of 1 to 5 s when the server closes, and so does one opened after', async () => {
    const hub = new StreamHub(db, feed, log, 10);
    const everyone = feed.visibility(undefined, feed.typesOf(undefined));
    const read = async (body: NodeJS.ReadableStream): Promise<string> => {
      let text = '';
      body.on('data', (chunk: Buffer) => (text += chunk.toString()));
      await new Promise((ended) => body.on('end', ended));
      return text;
    };
    const open = hub.open(everyone, 0, { client: 'a', hangUp: () => undefined });
    const first = read(open);
    await new Promise((settled) => setTimeout(settled, 20));
    hub.close();
    const late = read(hub.open(everyone, 0, { client: 'b', hangUp: () => undefined }));
    for (const text of [await first, await late]) {
      const last = text.split('\n\n').filter(Boolean).at(-1) ?? '';
      expect(last).toMatch(/^retry: \d{4}\n: the server is shutting down: reconnect with Last-Event-ID$/);
      const retry = Number(/^retry: (\d+)/.exec(last)?.[1]);
      expect(retry).toBeGreaterThanOrEqual(1000);
      expect(retry).toBeLessThan(5000);
    }
    expect(await first).toMatch(/^retry: 2000\n: streaming events after 0\n\n/);
    expect(hub.size).toBe(0);
  });

  it('ends with its token, however far ahead it expires: a timer waits 24.8 days at most (found in issue 56)', async () => {
    const in30Days = Date.now() + 30 * 86_400_000;
    const hub = new StreamHub(db, feed, log, 10);
    const body = hub.open(feed.visibility(undefined, feed.typesOf(undefined)), 0, {
      client: 'long',
      hangUp: () => undefined,
      until: in30Days,
    });
    body.resume();
    await new Promise((settled) => setTimeout(settled, 100));
    expect(body.writableEnded).toBe(false);
    hub.close();
  });

  it('frees the slot of a stream whose token expired though its client reads no more (a reviewer)', async () => {
    const hub = new StreamHub(db, feed, log, 10);
    const body = hub.open(feed.visibility(undefined, feed.typesOf(undefined)), 0, {
      client: 'gone',
      hangUp: () => undefined,
      until: Date.now() + 50,
    });
    // nobody reads `body`: its end is never taken, so 'close' never comes
    expect(hub.count('gone')).toBe(1);
    await new Promise((settled) => setTimeout(settled, 150));
    expect(body.writableEnded).toBe(true);
    expect([hub.size, hub.count('gone')]).toEqual([0, 0]);
    hub.close();
  });

  it('runs a far time in steps, and at that time', async () => {
    vi.useFakeTimers();
    try {
      let ran = 0;
      const at = Date.now() + 60 * 86_400_000;
      runAt(at, () => (ran += 1));
      await vi.advanceTimersByTimeAsync(2 ** 31);
      expect(ran).toBe(0);
      await vi.advanceTimersByTimeAsync(at - Date.now() - 1);
      expect(ran).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toBe(1);
      const cancelled = runAt(Date.now() + 10, () => (ran += 1));
      cancelled.cancel();
      await vi.advanceTimersByTimeAsync(20);
      expect(ran).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a write made to record its event on PostgreSQL', () => {
  const shape = {
    fields: [
      { key: 'id', column: 'id' },
      { key: 'ownerId', column: 'owner_id' },
      { key: 'seenAt', column: 'seen_at', datetime: true as const },
    ],
    owners: ['owner_id', 'editor_id'],
  };

  it('is one statement: the write, then its event made of the row written, under the commit-order lock, shared', () => {
    const write =
      'INSERT INTO "notes" ("owner_id") VALUES (:ownerId)\nRETURNING "id", "owner_id", "seen_at", "version"';
    expect(loggedWrite(write, "it's", 'created', shape)).toMatchInlineSnapshot(`
      "WITH "changed" AS (
      INSERT INTO "notes" ("owner_id") VALUES (:ownerId)
      RETURNING "id", "owner_id", "seen_at", "version"
      ), "logged" AS (
        INSERT INTO "restsmith_events" ("type", "at", "owners", "actor", "event")
        SELECT 'it''s.created', "event"."at", CASE WHEN coalesce("changed"."owner_id"::text, "changed"."editor_id"::text) IS NULL THEN NULL ELSE chr(31) || concat_ws(chr(31), "changed"."owner_id", "changed"."editor_id") || chr(31) END, "event"."actor", row_to_json("event")::text
        FROM "changed"
        CROSS JOIN LATERAL (SELECT "changed"."id" AS "id", "changed"."owner_id" AS "ownerId", to_char("changed"."seen_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "seenAt") AS "record"
        CROSS JOIN LATERAL (
          SELECT 'it''s.created' AS "type", 'it''s' AS "resource", "changed"."id" AS "recordId",
            "changed"."version" AS "version", CAST(:event_at AS text) AS "at", CAST(:event_actor AS text) AS "actor",
            row_to_json("record") AS "data"
        ) AS "event"
        CROSS JOIN (SELECT pg_advisory_xact_lock_shared(7170117)) AS "commit_order"
      )
      SELECT * FROM "changed""
    `);
  });

  it('records a deletion with the id, version and owners of the row removed, and no data', () => {
    const sql = loggedWrite('DELETE FROM "notes" WHERE "id" = :id RETURNING *', 'notes', 'deleted', shape);
    expect(sql).toContain(`NULL::json AS "data"`);
    expect(sql).not.toContain('row_to_json("record")');
    expect(sql).toContain(`'notes.deleted'`);
  });
});
