import { Migrator, sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, readConfig, readPooler, type Pooler } from '../../runtime/src/config.js';
import type { Bound, Database } from '../../runtime/src/db/database.js';
import { openDatabase } from '../../runtime/src/db/open.js';
import { openPostgres } from '../../runtime/src/db/postgres.js';
import { EventLog } from '../../runtime/src/events/log.js';
import { settledOf } from '../../runtime/src/events/settled.js';
import { sessionState, startFakePostgres, type FakePostgres } from '../helpers/fake-postgres.js';

/**
 * DATABASE_POOLER=transaction (SPEC §11 "Poolers"): what the server sends PostgreSQL through a transaction-mode pooler,
 * recorded by a stand-in server (test/helpers/fake-postgres.ts). Every kind of statement the runtime runs — a request's
 * statements, transactions, a listing whose plan is asked and which runs on the scan pool, the events' barrier, the
 * health check and the migrator — must leave nothing in a connection for the next transaction: no startup setting, no
 * named statement, no session SET, no session advisory lock; and each statement's transaction sets the timeout.
 * Test/postgres/pooler.test.ts runs the generated server through a real PgBouncer.
 */

let fake: FakePostgres;
beforeEach(async () => {
  fake = await startFakePostgres();
});
afterEach(async () => {
  await fake.close();
});

const TIMEOUT_MS = 4321;
const open = (pooler: Pooler): Database =>
  openPostgres(fake.url, 2, TIMEOUT_MS, { slots: 1, queue: 4, perClient: 2, timeoutMs: TIMEOUT_MS }, pooler);

/** A statement of each kind the runtime runs, each twice (a named statement is parsed once per connection only). */
async function exercise(db: Database): Promise<void> {
  const item = db.prepare<{ id: number }>('SELECT :id::int AS "id"');
  const update: Bound = { statement: db.prepareText('UPDATE "notes" SET "n" = "n" + 1'), values: [] };
  const list = db.prepareList('SELECT * FROM "notes" WHERE "body" LIKE $1', { table: 'notes', conditions: ['body'] });
  const log = new EventLog(db);
  for (let round = 0; round < 2; round += 1) {
    await item.get({ id: round });
    await db.prepareText('SELECT 2 AS "two"', { transient: true }).all([]);
    await db.atomically(update, () => [update]);
    await db.inTransaction(function* () {
      yield update;
      return 0;
    });
    // the stand-in has no plan to give: the listing runs as one that scans, on the scan pool
    await list.all(['%a%'], () => 'client');
    await log.append('notes', 'created', null, null);
    await db.ping();
  }
  await settledOf(db).through();
  const kysely: Kysely<unknown> = await db.kysely();
  const migrator = new Migrator({
    db: kysely,
    provider: {
      getMigrations: () =>
        Promise.resolve({
          '0001': { up: async (k: Kysely<unknown>) => void (await sql`CREATE TABLE "x" ()`.execute(k)) },
        }),
    },
  });
  const { error } = await migrator.migrateToLatest();
  expect(error).toBeUndefined();
}

describe('DATABASE_POOLER=transaction', () => {
  it('keeps no state in a connection between two transactions', async () => {
    const db = open('transaction');
    await exercise(db);
    await db.close();
    const { problems, runs } = sessionState(fake.connections);
    expect(problems).toEqual([]);
    // and it did run each kind of statement
    const texts = runs.map((run) => run.text);
    expect(texts).toContain('SELECT $1::int AS "id"');
    expect(texts.filter((text) => text.includes('SELECT * FROM "notes"'))).toHaveLength(2);
    const locks = fake.connections.flatMap((c) => c.sent).filter((s) => s.text.includes('pg_advisory_xact_lock'));
    expect(locks.map((s) => s.text)).toContain('SELECT pg_advisory_xact_lock(3853314791062309107)');
  });

  it('sets the statement timeout in the transaction of each statement of a request, and a scan runs on one backend', async () => {
    const db = open('transaction');
    await exercise(db);
    await db.close();
    const { runs } = sessionState(fake.connections);
    // the migrator's transaction sets no timeout, and takes the migration lock first
    const migrating = runs.filter((run) => run.settings?.statement_timeout === '0');
    expect(migrating.map((run) => run.text)).toEqual(
      expect.arrayContaining(['SELECT pg_advisory_xact_lock(3853314791062309107)', 'CREATE TABLE "x" ()']),
    );
    // the rest but the migrator's own reads (Kysely's tables, the catalog) and the health check (SELECT 1)
    const ofRequests = runs.filter(
      (run) =>
        run.settings?.statement_timeout !== '0' && !/pg_catalog|kysely/i.test(run.text) && run.text !== 'SELECT 1',
    );
    expect(ofRequests.length).toBeGreaterThan(10);
    for (const run of ofRequests)
      expect(run.settings, run.text).toMatchObject({ statement_timeout: String(TIMEOUT_MS) });
    const scans = ofRequests.filter((run) => run.text.includes('LIKE'));
    for (const run of scans) expect(run.settings).toMatchObject({ max_parallel_workers_per_gather: '0' });
  });

  it('and DATABASE_STATEMENT_TIMEOUT=0 sets none: a statement of a request is its own transaction', async () => {
    const db = openPostgres(fake.url, 2, 0, { slots: 1, queue: 4, perClient: 2, timeoutMs: 0 }, 'transaction');
    await db.prepareText('SELECT 1 AS "one"').get([]);
    await db.close();
    const { problems, runs } = sessionState(fake.connections);
    expect(problems).toEqual([]);
    expect(runs).toEqual([{ connection: 0, text: 'SELECT 1 AS "one"', settings: undefined }]);
  });
});

describe('DATABASE_POOLER=session (the default)', () => {
  it('names statements and gives the settings at connection start: what a transaction-mode pooler cannot keep', async () => {
    const db = open('session');
    await exercise(db);
    await db.close();
    const { problems } = sessionState(fake.connections);
    expect(problems).toContain('connection 0: startup parameter statement_timeout');
    expect(problems.some((problem) => /named statement restsmith_/.test(problem))).toBe(true);
    expect(problems.some((problem) => /startup parameter options/.test(problem))).toBe(true);
  });
});

describe('reading DATABASE_POOLER', () => {
  it('takes session (the default) or transaction, and refuses anything else in one line', () => {
    expect(readPooler(undefined)).toBe('session');
    expect(readPooler('')).toBe('session');
    expect(readPooler('session')).toBe('session');
    expect(readPooler('transaction')).toBe('transaction');
    for (const wrong of ['Transaction', 'statement', 'pgbouncer', 'true']) {
      expect(() => readPooler(wrong)).toThrow(ConfigError);
      expect(() => readPooler(wrong)).toThrow(
        `DATABASE_POOLER must be "session" (a direct connection, or a pooler in session mode) or "transaction" (a pooler in transaction mode), not "${wrong}"`,
      );
    }
    // the stand-in settings' rules need tokens
    const env = { JWT_SECRET: 'a-secret-of-thirty-two-bytes-or-more' };
    expect(readConfig({ ...env, DATABASE_POOLER: 'transaction' }).databasePooler).toBe('transaction');
    expect(readConfig(env).databasePooler).toBe('session');
    expect(() => readConfig({ ...env, DATABASE_POOLER: 'statement' })).toThrow(/^DATABASE_POOLER must be/);
  });

  it('is what openDatabase uses when not told', async () => {
    process.env.DATABASE_POOLER = 'transaction';
    try {
      const db = openDatabase(fake.url, 2, 1000);
      await db.prepareText('SELECT 1 AS "one"').get([]);
      await db.close();
    } finally {
      delete process.env.DATABASE_POOLER;
    }
    const { problems, runs } = sessionState(fake.connections);
    expect(problems).toEqual([]);
    expect(runs[0]?.settings).toEqual({ statement_timeout: '1000' });
  });
});
