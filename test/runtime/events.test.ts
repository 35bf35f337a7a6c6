import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { EventFeed, type EventSource } from '../../runtime/src/events/feed.js';
import { EventLog } from '../../runtime/src/events/log.js';
import { Retention } from '../../runtime/src/events/retention.js';
import { EVENT_TABLES } from '../../src/migrate/system-tables.js';

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
