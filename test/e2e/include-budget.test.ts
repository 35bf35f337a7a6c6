import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, loadBuilt, typecheckAndBuild, WORK } from '../helpers/project.js';
import { SECRET } from '../helpers/tokens.js';

/**
 * The budget for embedding (SPEC §10, issue 56): the shape of the issue (tickets and their customers, included back
 * and forth) with pages of 5 and `limits.include.maxRecords: 50`, on SQLite or PostgreSQL (RESTSMITH_TEST_DB). A
 * request whose limit and include paths could embed more than 50 records is a 400 naming the budget, before any
 * statement runs (statements are counted on the database the app is given); one within it is answered as before.
 */
const DEFINITION = `
name: helpdesk
version: 1.0.0
auth: { default: public, roles: [admin] }
limits:
  pageSize: { default: 5, max: 10 }
  includeDepth: 4
  include: { maxRecords: 50 }
resources:
  customers:
    fields: { name: { type: string, required: true } }
  tickets:
    fields:
      title: { type: string, required: true }
      customerId: { type: ref, to: customers, required: true }
`;

interface Statement {
  get(params: readonly unknown[]): Promise<unknown>;
  all(params: readonly unknown[]): Promise<unknown[]>;
  values(params: readonly unknown[]): Promise<unknown[][]>;
  run(params: readonly unknown[]): Promise<number>;
}
interface Db {
  prepare(sql: string): Statement;
  prepareText(sql: string, options?: object): Statement;
  prepareList(
    sql: string,
    facts: object,
    options?: object,
  ): { all(params: readonly unknown[], client: () => string): Promise<unknown[]> };
  close(): Promise<void>;
}
interface Inject {
  inject(o: { method: string; url: string; payload?: unknown }): Promise<{ statusCode: number; body: string }>;
  close(): Promise<void>;
}
type Rec = Record<string, unknown> & { id: string };
type Page = { items: Rec[]; nextCursor: string | null };

let app: Inject;
let db: Db;
let statements = 0;

/** The database, with every statement run counted. */
function counted(inner: Db): Db {
  const wrap = (s: Statement): Statement => ({
    get: (p) => (statements++, s.get(p)),
    all: (p) => (statements++, s.all(p)),
    values: (p) => (statements++, s.values(p)),
    run: (p) => (statements++, s.run(p)),
  });
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'prepare') return (sql: string) => wrap(target.prepare(sql));
      if (key === 'prepareText') return (sql: string, options?: object) => wrap(target.prepareText(sql, options));
      // a listing's statement (see db/database.ts ListStatement)
      if (key === 'prepareList')
        return (sql: string, facts: object, options?: object) => {
          const listed = target.prepareList(sql, facts, options);
          return { all: (p: readonly unknown[], client: () => string) => (statements++, listed.all(p, client)) };
        };
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The answer to a request, and how many statements it ran. */
const call = async (method: string, url: string, payload?: unknown) => {
  const before = statements;
  const r = await app.inject({ method, url, ...(payload !== undefined && { payload }) });
  const body = (r.body === '' ? undefined : JSON.parse(r.body)) as Rec & Page;
  return { status: r.statusCode, body, statements: statements - before };
};

const customers: Rec[] = [];

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'helpdesk.yaml');
  writeFileSync(file, DEFINITION);
  const dir = await generateFresh(file, 'e2e-include-budget');
  await typecheckAndBuild(dir);
  const load = <T>(path: string) => loadBuilt<T>(join(dir, 'dist'), path);
  const { openDatabase } = await load<{ openDatabase: (url: string) => Db }>('db/open.js');
  const { migrate } = await load<{ migrate: (db: Db) => Promise<unknown> }>('db/migrate.js');
  const { buildApp } = await load<{ buildApp: (o: object) => Promise<Inject> }>('app.js');
  db = openDatabase(await databaseUrl('include-budget'));
  await migrate(db);
  app = await buildApp({ db: counted(db), auth: { secret: SECRET }, rateLimitMax: 100_000 });
  // two customers of 6 tickets each: more than an embedded page of 5
  for (const name of ['Ada', 'Bo']) {
    const customer = (await call('POST', '/customers', { name })).body;
    customers.push(customer);
    for (let i = 0; i < 6; i++) {
      expect((await call('POST', '/tickets', { title: `${name} ${i}`, customerId: customer.id })).status).toBe(201);
    }
  }
}, 240_000);

afterAll(async () => {
  await app?.close();
  await db?.close();
});

/** Every record embedded in `records`, at every level. */
function embedded(records: readonly Rec[]): number {
  let count = 0;
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      if (key === 'customer' && value !== null) count += 1 + embedded([value as Rec]);
      if (key === 'tickets') count += (value as Page).items.length + embedded((value as Page).items);
    }
  }
  return count;
}

describe('an include over limits.include.maxRecords', () => {
  it.each([
    // 10 tickets, their 10 customers, 5 tickets of each (50), their 50 customers, 5 tickets of each (250)
    ['the issue: a listing, back and forth', '/tickets?limit=10&include=customer.tickets.customer.tickets', 360],
    // 9 customers, then 5 tickets under each: one page too many
    ['a listing, just over', '/tickets?limit=9&include=customer.tickets', 54],
    // one customer: 5 tickets, 5 customers, 25 tickets, 25 customers
    ['a read', '/customers/{id}?include=tickets.customer.tickets.customer', 60],
    // a page of 10 tickets of one customer, their 10 customers, 5 tickets each
    ['a nested listing', '/customers/{id}/tickets?limit=10&include=customer.tickets', 60],
  ])('%s is a 400 naming the budget, and runs no statement', async (_, url, most) => {
    const answer = await call('GET', url.replace('{id}', customers[0]!.id));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      status: 400,
      title: 'Bad Request',
      detail: expect.stringMatching(
        new RegExp(`^include would embed up to ${most} records; limits\\.include\\.maxRecords is 50: `),
      ),
      errors: [{ path: '/include' }],
    });
    expect(answer.statements).toBe(0);
  });

  it('is a 400 before the record is looked for: a read of a missing one too', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const over = await call('GET', `/customers/${missing}?include=tickets.customer.tickets.customer`);
    expect([over.status, over.statements]).toEqual([400, 0]);
    expect((await call('GET', `/customers/${missing}?include=tickets`)).status).toBe(404);
  });
});

describe('an include within the budget', () => {
  it('is answered as before, never holding more records than the budget', async () => {
    // 8 tickets, their 8 customers, 5 tickets of each: 48
    const page = await call('GET', '/tickets?limit=8&include=customer.tickets');
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(8);
    for (const ticket of page.body.items) {
      const customer = ticket.customer as Rec & { tickets: Page };
      expect(customer.id).toBe(ticket.customerId);
      expect(customer.tickets.items).toHaveLength(5);
      expect(customer.tickets.nextCursor).not.toBeNull();
    }
    expect(embedded(page.body.items)).toBe(48);
  });

  it('counts the default limit when none is given, and 1 on a read', async () => {
    // 5 tickets, 5 customers, 25 tickets
    const listing = await call('GET', '/tickets?include=customer.tickets');
    expect([listing.status, listing.body.items.length, embedded(listing.body.items)]).toEqual([200, 5, 30]);
    // one customer: 5 tickets, 5 customers, 25 tickets
    const read = await call('GET', `/customers/${customers[1]!.id}?include=tickets.customer.tickets`);
    expect(read.status).toBe(200);
    expect(embedded([read.body])).toBe(35);
    const nested = await call('GET', `/customers/${customers[1]!.id}/tickets?limit=2&include=customer.tickets`);
    expect([nested.status, embedded(nested.body.items)]).toEqual([200, 2 + 10]);
  });
});
