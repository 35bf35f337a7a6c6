import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, ON_POSTGRES, runSql } from '../helpers/database.js';
import { generateFresh, http, startServer, typecheckAndBuild, WORK, type RunningServer } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * SPEC §6 on a market: every write records its event in the transaction of the change, the feed filters each event
 * by its resource's read rule against the record as it was, and the stream follows the feed live, across instances.
 */
const DEFINITION = `
name: market
version: 1.0.0
prefix: /api
auth: { default: authenticated, roles: [admin, clerk] }
events: {}
resources:
  products:
    fields:
      name: { type: string, required: true, unique: true }
      price: { type: number }
      discontinued: { type: boolean, default: false, readOnly: true }
    access: { list: public, read: public, create: clerk, update: clerk, delete: clerk }
    relations:
      tags: { through: product-tags }
    actions:
      discontinue: { on: item, access: clerk, when: { discontinued: false }, set: { discontinued: true } }
  tags:
    fields:
      label: { type: string, required: true }
      hashtag: { type: string, computed: true }
    access: { list: public, read: public, create: clerk, update: clerk, delete: clerk }
  product-tags:
    fields:
      productId: { type: ref, to: products, required: true, onDelete: cascade }
      tagId: { type: ref, to: tags, required: true, onDelete: cascade }
    unique: [[productId, tagId]]
    access: { list: public, read: public, create: clerk, update: clerk, delete: clerk }
  gadgets:
    fields:
      label: { type: string, required: true }
      body: text
      count: integer
      weight: number
      on: boolean
      madeOn: date
      seenAt: datetime
      serial: uuid
      size: { type: enum, values: [small, large] }
      specs: json
      productId: { type: ref, to: products }
      pin: { type: string, writeOnly: true }
    access: { list: public, read: public, create: clerk, update: clerk, delete: clerk }
    actions:
      light: { on: item, access: clerk, set: { on: true, seenAt: now } }
  # two resources of one shape: an event of either is a record of both (the document tells them apart by resource)
  pens:
    fields: { label: string }
    access: { list: public, read: public, create: clerk, update: clerk, delete: clerk }
  pencils:
    fields: { label: string }
    access: { list: public, read: public, create: clerk, update: clerk, delete: clerk }
  orders:
    owner: customerId
    fields:
      customerId: { type: string, readOnly: true }
      note: string
      status: { type: enum, values: [open, paid], default: open, readOnly: true }
      productId: { type: ref, to: products, nullable: true, onDelete: setNull }
    access: { list: owner, read: owner, create: authenticated, update: owner, delete: owner }
    actions:
      pay: { on: item, access: owner, when: { status: open }, set: { status: paid } }
      remind: { on: item, access: owner }
      withdraw: { on: item, access: owner }
`;

/** The user's handler of `remind`: answers with the record (as a user would write it). */
const HANDLERS = `import type { OrdersHandlers } from '../resources/orders/actions.js';

export const ordersHandlers: OrdersHandlers = {
  async remind({ record }) {
    return { status: 202, body: record };
  },
  // deletes the record it acts on: the action's event is still the record's, as it was
  async withdraw({ record, version, caller, store }) {
    await store.delete(record.id, null, version, caller?.subject ?? null);
    return { status: 204 };
  },
};
`;

/** The user's function of a computed field: its event carries it too (recorded by the write's transaction). */
const COMPUTED = `import type { TagsComputed } from '../resources/tags/model.js';

export const tagsComputed: TagsComputed = {
  hashtag(record) {
    return '#' + record.label;
  },
};
`;

type Rec = Record<string, unknown>;
// ajv-formats' CommonJS default export, as NodeNext types it
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Caller = ReturnType<typeof as>;
interface Event {
  seq: number;
  type: string;
  resource: string;
  recordId: unknown;
  version: number | null;
  actor: string | null;
  data: Rec | null;
}

let dir: string;
let url: string;
let one: RunningServer;
let two: RunningServer;
let alice: Caller, bob: Caller, clerk: Caller, admin: Caller;

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'market.yaml');
  writeFileSync(file, DEFINITION);
  dir = await generateFresh(file, 'e2e-market');
  writeFileSync(join(dir, 'src/handlers/orders.ts'), HANDLERS);
  writeFileSync(join(dir, 'src/computed/tags.ts'), COMPUTED);
  await typecheckAndBuild(dir);
  // two instances of one database: a file on SQLite (WAL lets both write), one database on PostgreSQL
  url = await databaseUrl('market', 'sqlite:./data/market.db');
  const env = { DATABASE_URL: url, JWT_SECRET: SECRET };
  one = await startServer(dir, env, '/api/healthz');
  two = await startServer(dir, env, '/api/healthz');
  alice = as(await token('alice'));
  bob = as(await token('bob'));
  clerk = as(await token('carl', { roles: ['clerk'] }));
  admin = as(await token('ada', { roles: ['admin'] }));
});

afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
});

async function created(caller: Caller, path: string, body: Rec, server = one): Promise<Rec> {
  const r = await caller('POST', `${server.url}/api${path}`, body);
  expect(r.status, r.text).toBe(201);
  return r.body as Rec;
}

/** Every event the caller may see after `after`, page by page (`limit` each). */
async function feed(caller: Caller | null, after = 0, query = '', limit = 3): Promise<Event[]> {
  const events: Event[] = [];
  let cursor: string | null = String(after);
  for (let page = 0; cursor !== null && page < 100; page += 1) {
    const path = `${one.url}/api/events?after=${cursor}&limit=${limit}${query}`;
    const r = caller === null ? await http('GET', path) : await caller('GET', path);
    expect(r.status, r.text).toBe(200);
    const body = r.body as { items: Event[]; nextCursor: string | null };
    events.push(...body.items);
    cursor = body.nextCursor;
  }
  return events;
}

const latest = async (): Promise<number> => Math.max(0, ...(await feed(admin, 0, '', 100)).map((e) => e.seq));

describe('the outbox', () => {
  it('records each write with its record, version and actor, and nothing for a write refused', async () => {
    const start = await latest();
    const order = await created(alice, '/orders', { note: 'tea' });
    const patched = await alice('PATCH', `${one.url}/api/orders/${String(order.id)}`, { note: 'green tea' });
    expect(patched.status).toBe(200);
    // refused writes: a stale If-Match (412), an action whose `when` fails after it passed once (409)
    const stale = await alice(
      'PATCH',
      `${one.url}/api/orders/${String(order.id)}`,
      { note: 'x' },
      { 'if-match': '"1"' },
    );
    expect(stale.status).toBe(412);
    expect((await alice('POST', `${one.url}/api/orders/${String(order.id)}/pay`)).status).toBe(200);
    expect((await alice('POST', `${one.url}/api/orders/${String(order.id)}/pay`)).status).toBe(409);
    expect((await alice('POST', `${one.url}/api/orders/${String(order.id)}/remind`)).status).toBe(202);
    expect((await alice('DELETE', `${one.url}/api/orders/${String(order.id)}`)).status).toBe(204);

    const events = await feed(alice, start);
    expect(events.map((e) => e.type)).toEqual([
      'orders.created',
      'orders.updated',
      'orders.pay',
      'orders.remind',
      'orders.deleted',
    ]);
    expect(events.map((e) => e.version)).toEqual([1, 2, 3, 3, 3]);
    expect(events.every((e) => e.recordId === order.id && e.actor === 'alice' && e.resource === 'orders')).toBe(true);
    expect(events[1]?.data).toMatchObject({ id: order.id, note: 'green tea', status: 'open', customerId: 'alice' });
    expect(events[2]?.data).toMatchObject({ status: 'paid' });
    expect(events[4]?.data).toBeNull();
    // seq strictly increases
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
  });

  it("carries the record as the API answered the write, every field type (PostgreSQL makes it in the write's statement)", async () => {
    const start = await latest();
    const product = await created(clerk, '/products', { name: 'scale' });
    const full = {
      label: 'o"ne\\ \u00e9\u2028\n',
      body: 'long\ttext',
      count: 9007199254740991,
      weight: 0.1,
      on: false,
      madeOn: '2026-02-28',
      seenAt: '2026-11-25T10:00:00.5+02:00',
      serial: '0196c3a0-0000-7000-8000-000000000001',
      size: 'large',
      specs: { b: [1, 2.5, null, true], a: { nested: 'x' } },
      productId: product.id,
      pin: '1234',
    };
    const gadget = await created(clerk, '/gadgets', full);
    expect(gadget.pin).toBeUndefined();
    const path = `${one.url}/api/gadgets/${String(gadget.id)}`;
    const patched = await clerk('PATCH', path, { weight: -1.5e-7, specs: null, seenAt: null, count: -3 });
    expect(patched.status, patched.text).toBe(200);
    const lit = await clerk('POST', `${path}/light`);
    expect(lit.status, lit.text).toBe(200);
    const empty = await created(clerk, '/gadgets', { label: 'bare' });
    expect((await clerk('DELETE', path)).status).toBe(204);

    const events = (await feed(admin, start)).filter((e) => e.resource === 'gadgets');
    expect(events.map((e) => e.type)).toEqual([
      'gadgets.created',
      'gadgets.updated',
      'gadgets.light',
      'gadgets.created',
      'gadgets.deleted',
    ]);
    expect(events.map((e) => e.data)).toEqual([gadget, patched.body, lit.body, empty, null]);
    expect(events.map((e) => [e.recordId, e.version, e.actor])).toEqual([
      [gadget.id, 1, 'carl'],
      [gadget.id, 2, 'carl'],
      [gadget.id, 3, 'carl'],
      [empty.id, 1, 'carl'],
      [gadget.id, 3, 'carl'],
    ]);
  });

  it("records an action whose handler deleted its record as the record was: its owner sees it, no one else (a newcomer's)", async () => {
    const start = await latest();
    const order = await created(alice, '/orders', { note: 'to withdraw' });
    const withdrawn = await alice('POST', `${one.url}/api/orders/${String(order.id)}/withdraw`);
    expect(withdrawn.status, withdrawn.text).toBe(204);
    const events = await feed(alice, start);
    expect(events.map((e) => [e.type, e.recordId, e.version, e.data === null])).toEqual([
      ['orders.created', order.id, 1, false],
      ['orders.deleted', order.id, 1, true],
      ['orders.withdraw', order.id, 1, true],
    ]);
    expect((await feed(bob, start)).filter((e) => e.resource === 'orders')).toEqual([]);
  });

  it('records nothing when a constraint refuses the write', async () => {
    await created(clerk, '/products', { name: 'kettle', price: 20 });
    const before = await latest();
    const again = await clerk('POST', `${one.url}/api/products`, { name: 'kettle' });
    expect(again.status).toBe(409);
    expect(await latest()).toBe(before);
  });

  it('records a link made and removed as the join record created and deleted', async () => {
    const start = await latest();
    const product = await created(clerk, '/products', { name: 'genmaicha' });
    const tag = await created(clerk, '/tags', { label: 'green' });
    const link = `${one.url}/api/products/${String(product.id)}/tags/${String(tag.id)}`;
    expect((await clerk('PUT', link)).status).toBeLessThan(300);
    expect((await clerk('DELETE', link)).status).toBe(204);
    const events = await feed(admin, start);
    expect(events.map((e) => e.type)).toEqual([
      'products.created',
      'tags.created',
      'product-tags.created',
      'product-tags.deleted',
    ]);
    expect(events[3]?.recordId).toBe(events[2]?.recordId);
    expect(events[2]?.data).toMatchObject({ productId: product.id, tagId: tag.id });
    expect(tag.hashtag).toBe('#green');
    expect(events[1]?.data).toEqual(tag);
  });

  it('records what a delete did to the records that refer to it, each event seen by whoever may read its record', async () => {
    const start = await latest();
    const product = await created(clerk, '/products', { name: 'sencha' });
    const tags = [
      await created(clerk, '/tags', { label: 'steamed' }),
      await created(clerk, '/tags', { label: 'leaf' }),
    ];
    for (const tag of tags) {
      const link = await clerk('PUT', `${one.url}/api/products/${String(product.id)}/tags/${String(tag.id)}`);
      expect(link.status, link.text).toBeLessThan(300);
    }
    const order = await created(alice, '/orders', { note: 'sencha please', productId: product.id });
    const links = (await feed(admin, start)).filter((e) => e.type === 'product-tags.created');
    const path = `${one.url}/api/products/${String(product.id)}`;
    // a delete refused (another version) deletes nothing, clears nothing and records nothing
    const before = await latest();
    expect((await clerk('DELETE', path, undefined, { 'if-match': '"7"' })).status).toBe(412);
    expect(await latest()).toBe(before);
    expect((await clerk('DELETE', path)).status).toBe(204);

    // the order whose ref was cleared is a new version, and its ETag says so
    const read = await alice('GET', `${one.url}/api/orders/${String(order.id)}`);
    expect(read.body).toMatchObject({ productId: null, note: 'sencha please' });
    expect(read.headers.get('etag')).toBe('"2"');
    const events = (await feed(admin, before)).map((e) => [e.type, e.recordId, e.version, e.actor, e.data]);
    expect(events).toEqual([
      ['orders.updated', order.id, 2, 'carl', read.body],
      ...links.reverse().map((e) => ['product-tags.deleted', e.recordId, 1, 'carl', null]),
      ['products.deleted', product.id, 1, 'carl', null],
    ]);
    // each by its own read rule: the order's event is alice's to see, not bob's
    expect((await feed(alice, before)).map((e) => e.type)).toContain('orders.updated');
    expect((await feed(bob, before)).map((e) => e.type)).toEqual([
      'product-tags.deleted',
      'product-tags.deleted',
      'products.deleted',
    ]);
  });

  it('keeps the event of a write in the same transaction: a failing event insert undoes the write', async () => {
    // a trigger that refuses the next event row stands for a crash between the change and its event
    const refuse = ON_POSTGRES
      ? [
          `CREATE FUNCTION refuse_event() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no events now'; END $$ LANGUAGE plpgsql`,
          `CREATE TRIGGER refuse_event BEFORE INSERT ON restsmith_events FOR EACH ROW EXECUTE FUNCTION refuse_event()`,
        ]
      : [
          `CREATE TRIGGER refuse_event BEFORE INSERT ON restsmith_events BEGIN SELECT RAISE(ABORT, 'no events now'); END`,
        ];
    for (const statement of refuse) await runSql(url, dir, statement);
    try {
      const r = await clerk('POST', `${one.url}/api/products`, { name: 'teapot' });
      expect(r.status).toBe(500);
      expect(r.text).not.toMatch(/INSERT|no events now/);
    } finally {
      await runSql(url, dir, 'DROP TRIGGER refuse_event' + (ON_POSTGRES ? ' ON restsmith_events' : ''));
    }
    const listed = await http('GET', `${one.url}/api/products?name=teapot`);
    expect((listed.body as { items: unknown[] }).items).toEqual([]);
  });
});

describe('concurrent writers', () => {
  it('never make a reader following the feed skip an event', async () => {
    // on PostgreSQL, each event row waits a little after it drew its seq, before its transaction commits (as a slow
    // disk would make it): writes commit in parallel (the commit-order lock is shared), so a later seq commits first,
    // and without the readers' barrier (events/settled.ts) the follower would skip one
    if (ON_POSTGRES) {
      await runSql(
        url,
        dir,
        `CREATE FUNCTION slow_event() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(random() * 0.005); RETURN NULL; END $$ LANGUAGE plpgsql`,
      );
      await runSql(
        url,
        dir,
        `CREATE TRIGGER slow_event AFTER INSERT ON restsmith_events FOR EACH ROW EXECUTE FUNCTION slow_event()`,
      );
    }
    const start = await latest();
    let writing = true;
    const followed: number[] = [];
    const follow = (async () => {
      let after = start;
      for (let round = 0; round < 2000; round += 1) {
        const done = !writing;
        const r = await admin('GET', `${one.url}/api/events?after=${after}&limit=100`);
        const page = r.body as { items: Event[]; nextCursor: string | null };
        followed.push(...page.items.map((e) => e.seq));
        after = page.nextCursor !== null ? Number(page.nextCursor) : (page.items.at(-1)?.seq ?? after);
        // one last read after the writers stopped, once it has nothing more
        if (done && page.nextCursor === null) return;
      }
    })();
    // 4 writers on each instance, 10 orders each
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let i = 0; i < 10; i += 1)
          await created(alice, '/orders', { note: `w${writer}-${i}` }, writer % 2 ? one : two);
      }),
    );
    writing = false;
    await follow;
    const all = (await feed(admin, start, '', 100)).map((e) => e.seq);
    if (ON_POSTGRES) {
      await runSql(url, dir, `DROP TRIGGER slow_event ON restsmith_events`);
      await runSql(url, dir, `DROP FUNCTION slow_event`);
    }
    expect(all).toHaveLength(80);
    expect(followed).toEqual(all);
  });

  it('cannot make a record refer to what a delete reaches while it runs: every change has its event, none a 500', async () => {
    const product = await created(clerk, '/products', { name: 'matcha' });
    for (let i = 0; i < 20; i += 1) await created(alice, '/orders', { note: `before ${i}`, productId: product.id });
    const start = await latest();
    // orders made on both instances while the product is deleted: each made is cleared by the delete (with its
    // event), or refused after it (the product gone: 409); a deadlock is run again, never a 500
    const statuses: number[] = [];
    const made: Rec[] = [];
    const writers = Array.from({ length: 6 }, async (_, writer) => {
      for (let i = 0; i < 8; i += 1) {
        const body = { note: `during ${writer}-${i}`, productId: product.id };
        const r = await alice('POST', `${(writer % 2 ? one : two).url}/api/orders`, body);
        statuses.push(r.status);
        if (r.status === 201) made.push(r.body as Rec);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const deleted = await clerk('DELETE', `${one.url}/api/products/${String(product.id)}`);
    await Promise.all(writers);
    expect(deleted.status, deleted.text).toBe(204);
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    const cleared = (await feed(admin, start, '&types=orders.updated', 100)).filter((e) => e.data?.productId === null);
    for (const order of made) {
      const now = await alice('GET', `${one.url}/api/orders/${String(order.id)}`);
      expect((now.body as Rec).productId).toBeNull();
      expect(
        cleared.map((e) => e.recordId),
        `orders.updated of ${String(order.id)}`,
      ).toContain(order.id);
    }
    expect(cleared.length).toBeGreaterThanOrEqual(20);
  });
});

describe('the feed', () => {
  let start: number;
  let mine: Rec;
  let bobs: Rec;
  let tea: Rec;

  beforeAll(async () => {
    start = await latest();
    mine = await created(alice, '/orders', { note: 'alice 1' });
    bobs = await created(bob, '/orders', { note: 'bob 1' });
    tea = await created(clerk, '/products', { name: 'oolong', price: 7 });
    await alice('DELETE', `${one.url}/api/orders/${String(mine.id)}`);
  });

  it("shows each caller the events of records they may read: their own orders, every product's", async () => {
    const seen = async (caller: Caller | null) =>
      (await feed(caller, start)).map((e) => `${e.type} ${String(e.recordId)}`);
    expect(await seen(alice)).toEqual([
      `orders.created ${String(mine.id)}`,
      `products.created ${String(tea.id)}`,
      // a deletion is checked against the record before it went
      `orders.deleted ${String(mine.id)}`,
    ]);
    expect(await seen(bob)).toEqual([`orders.created ${String(bobs.id)}`, `products.created ${String(tea.id)}`]);
    // the clerk's role is not in the orders' read rule; anyone may read products
    expect(await seen(clerk)).toEqual([`products.created ${String(tea.id)}`]);
    expect(await seen(null)).toEqual([`products.created ${String(tea.id)}`]);
    expect(await seen(admin)).toHaveLength(4);
  });

  it('shows the actor to the administrator and to the actor only', async () => {
    const of = async (caller: Caller | null) => (await feed(caller, start)).find((e) => e.recordId === tea.id)?.actor;
    expect(await of(admin)).toBe('carl');
    expect(await of(clerk)).toBe('carl');
    expect(await of(alice)).toBeNull();
    expect(await of(null)).toBeNull();
  });

  it('refuses a token that is not valid rather than show less', async () => {
    const expired = as(await token('alice', { expires: 1 }));
    const r = await expired('GET', `${one.url}/api/events`);
    expect(r.status).toBe(401);
    expect((await http('GET', `${one.url}/api/events`, undefined, { authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('filters by resource and by type, and pages with nextCursor', async () => {
    const types = async (query: string) => (await feed(admin, start, query, 1)).map((e) => e.type);
    expect(await types('&types=orders')).toEqual(['orders.created', 'orders.created', 'orders.deleted']);
    expect(await types('&types=orders.deleted,products')).toEqual(['products.created', 'orders.deleted']);
    const bad = await http('GET', `${one.url}/api/events?types=orders,nope`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, detail: expect.stringMatching(/"nope".*known: products, tags/) });
    for (const query of ['after=-1', 'after=x', 'limit=0', 'limit=101', 'since=3']) {
      const r = await http('GET', `${one.url}/api/events?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
  });

  it('refuses an `after` past the newest event, on the feed and the stream: a reader would miss every event up to it', async () => {
    const newest = (await feed(admin, start, '', 100)).at(-1)?.seq ?? start;
    expect((await admin('GET', `${one.url}/api/events?after=${newest}`)).status).toBe(200);
    for (const path of [`/api/events?after=${newest + 1000}`, `/api/events/stream?after=${newest + 1000}`]) {
      const r = await admin('GET', `${one.url}${path}`);
      expect(r.status, path).toBe(400);
      expect(r.body, path).toMatchObject({ status: 400, detail: expect.stringContaining(`the newest is ${newest}`) });
    }
  });

  it('answers 410 Gone for an `after` older than what the retention kept, and starts a new reader at the oldest kept', async () => {
    // the first event after start pruned (seqs may have gaps on PostgreSQL: a write refused drew one)
    const [first, second] = (await feed(admin, start, '', 100)).map((e) => e.seq);
    await runSql(url, dir, 'UPDATE restsmith_event_horizon SET pruned_through = ? WHERE id = 1', [first ?? 0]);
    try {
      const gone = await admin('GET', `${one.url}/api/events?after=${start}`);
      expect(gone.status).toBe(410);
      expect(gone.body).toMatchObject({ status: 410, detail: expect.stringContaining('kept 7d') });
      expect((await admin('GET', `${one.url}/api/events?after=${String(first)}`)).status).toBe(200);
      const stream = await http('GET', `${one.url}/api/events/stream?after=${start}`);
      expect(stream.status).toBe(410);
      // a reader without `after` starts after the horizon: no 410
      const fresh = await admin('GET', `${one.url}/api/events?limit=1`);
      expect(fresh.status, fresh.text).toBe(200);
      expect((fresh.body as { items: Event[] }).items[0]?.seq).toBe(second);
    } finally {
      await runSql(url, dir, 'UPDATE restsmith_event_horizon SET pruned_through = 0 WHERE id = 1');
    }
  });
});

/**
 * Reads a stream's events as eventsource-parser parses them, until `until` says enough or `ms` pass. A connection of
 * its own (no keep-alive pool): it is closed when the reading stops, as an EventSource's would be.
 */
function streamed(
  server: RunningServer,
  bearer: string,
  headers: Record<string, string>,
  until: (events: EventSourceMessage[]) => boolean,
  ms = 8000,
): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  return new Promise((resolve, reject) => {
    const request = get(
      `${server.url}/api/events/stream`,
      { agent: false, headers: { authorization: `Bearer ${bearer}`, ...headers } },
      (response) => {
        try {
          expect(response.statusCode).toBe(200);
          expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
        } catch (error) {
          reject(error as Error);
        }
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          parser.feed(chunk);
          if (until(events)) done();
        });
        response.on('end', done);
      },
    );
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      request.destroy();
      resolve(events);
    }
    request.on('error', () => done());
  });
}

describe('the stream', () => {
  it('resumes after Last-Event-ID with no gap and no duplicate, and streams writes made through another instance', async () => {
    const bearer = await token('alice');
    const start = await latest();
    const first = await created(alice, '/orders', { note: 'one' });
    await created(alice, '/orders', { note: 'two' });
    // the first connection takes the first event, and leaves
    const before = await streamed(one, bearer, { 'last-event-id': String(start) }, (events) => events.length >= 1);
    expect(before[0]).toMatchObject({ id: expect.any(String), event: 'orders.created' });
    expect(JSON.parse(before[0]?.data ?? '{}')).toMatchObject({ recordId: first.id });
    // it resumes from its last id on instance one, while a third order is made through instance two
    const noteOf = (event: EventSourceMessage) => (JSON.parse(event.data) as Event).data?.note;
    const resumed = streamed(one, bearer, { 'last-event-id': before.at(-1)?.id ?? '' }, (events) =>
      events.some((event) => noteOf(event) === 'three'),
    );
    await new Promise((wait) => setTimeout(wait, 300));
    const third = await created(alice, '/orders', { note: 'three' }, two);
    const after = await resumed;
    expect([...before, ...after].map(noteOf)).toEqual(['one', 'two', 'three']);
    expect(after.at(-1)?.id).toBe(String((await feed(alice, start)).find((e) => e.recordId === third.id)?.seq));
  });

  it("sends bob nothing of alice's orders, and every product's event", async () => {
    const start = await latest();
    const bobSees = streamed(
      one,
      await token('bob'),
      { 'last-event-id': String(start) },
      (events) => events.length >= 1,
    );
    await new Promise((wait) => setTimeout(wait, 300));
    await created(alice, '/orders', { note: 'private' });
    await created(clerk, '/products', { name: 'sencha' });
    const events = await bobSees;
    expect(events.map((e) => e.event)).toEqual(['products.created']);
  });

  it('ends a stream when its token expires', async () => {
    const started = Date.now();
    const events = await streamed(one, await token('alice', { expires: '2s' }), {}, () => false, 10_000);
    expect(Date.now() - started).toBeLessThan(6000);
    expect(Array.isArray(events)).toBe(true);
  });

  it('keeps a stream open for a token that expires in 30 days, and refuses one that expires in 1e300 (issue 56)', async () => {
    const started = Date.now();
    // a timer set for more than 2^31-1 ms ran at once: the stream ended as it began, and the client reconnected
    await streamed(one, await token('alice', { expires: '30d' }), {}, () => false, 1500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    const forever = await token('alice', { expires: 1e300 });
    for (const path of ['/api/events', '/api/events/stream', '/api/orders']) {
      const r = await http('GET', `${one.url}${path}`, undefined, { authorization: `Bearer ${forever}` });
      expect(r.status, path).toBe(401);
    }
  });

  it('sends a reader that keeps up a catch-up of 3 MB whole, in order (issue 56)', async () => {
    const start = await latest();
    const body = 'x'.repeat(100_000);
    const ids: unknown[] = [];
    for (let i = 0; i < 30; i += 1) ids.push((await created(clerk, '/gadgets', { label: `big ${i}`, body })).id);
    const events = await streamed(
      one,
      await token('alice'),
      { 'last-event-id': String(start) },
      (events) => events.length >= 30,
      20_000,
    );
    expect(events.map((event) => (JSON.parse(event.data) as Event).recordId)).toEqual(ids);
  });

  it('keeps 10 streams per client at most', async () => {
    const bearer = await token('greedy');
    const open = Array.from({ length: 10 }, () =>
      get(`${one.url}/api/events/stream`, { agent: false, headers: { authorization: `Bearer ${bearer}` } }),
    );
    try {
      await Promise.all(open.map((r) => new Promise((answered) => r.once('response', answered))));
      const more = await http('GET', `${one.url}/api/events/stream`, undefined, { authorization: `Bearer ${bearer}` });
      expect(more.status).toBe(429);
      expect(
        (await http('GET', `${one.url}/api/events?limit=1`, undefined, { authorization: `Bearer ${bearer}` })).status,
      ).toBe(200);
    } finally {
      for (const r of open) r.destroy();
    }
  });

  it('refuses a Last-Event-ID that is not a seq', async () => {
    const r = await http('GET', `${one.url}/api/events/stream`, undefined, { 'last-event-id': 'abc' });
    expect(r.status).toBe(400);
    expect((r.body as { errors: unknown }).errors).toEqual([
      {
        path: '/last-event-id',
        message: 'must be the id of an event the stream sent: a whole number, up to 16 digits',
      },
    ]);
  });
});

describe('the document', () => {
  it('describes the events /events answers, to a validator that holds oneOf to exactly one (issue 56)', async () => {
    const start = await latest();
    const pen = await created(clerk, '/pens', { label: 'blue' });
    await created(clerk, '/pencils', { label: 'HB' });
    expect((await clerk('DELETE', `${one.url}/api/pens/${String(pen.id)}`)).status).toBe(204);
    const document = (await http('GET', `${one.url}/api/openapi.json`)).body as object;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'urn:test:market' });
    const validate = ajv.getSchema(
      'urn:test:market#/paths/~1events/get/responses/200/content/application~1json/schema',
    );
    if (validate === undefined) throw new Error('no schema for the 200 of GET /events');
    const r = await http('GET', `${one.url}/api/events?after=${start}&types=pens,pencils`);
    expect((r.body as { items: unknown[] }).items).toHaveLength(3);
    expect(validate(r.body), JSON.stringify(validate.errors)).toBe(true);
    // and it still refuses an event that is not one: a pen's event with a type of pencils, or of no resource
    const [first] = (r.body as { items: Rec[] }).items;
    for (const wrong of [{ type: 'pencils.created' }, { resource: 'erasers' }])
      expect(validate({ items: [{ ...first, ...wrong }], nextCursor: null }), JSON.stringify(wrong)).toBe(false);
  });
});

describe('the generated project', () => {
  it('creates the event tables in its migration', () => {
    const migration = readFileSync(join(dir, 'src/db/migrations/0001-initial.ts'), 'utf8');
    expect(migration).toContain('restsmith_events');
    expect(migration).toContain('create the event log (events)');
  });
});
