import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { DatabaseUnavailableError } from '../../runtime/src/db/database.js';

/**
 * SQLite's listing statements that scan run on a worker thread (its own read-only connection to the file); the
 * ones an index serves stay on this thread. Run here from source, the worker is TypeScript loaded through tsx.
 */
let dir: string;
let db: Database;
const facts = (conditions: string[]) => ({ table: 'posts', conditions });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scan-workers-'));
  db = openSqlite(join(dir, 'app.db'), { slots: 1, queue: 1, perClient: 5, timeoutMs: 5_000 });
  await db.prepareText('CREATE TABLE "posts" ("id" TEXT PRIMARY KEY, "body" TEXT, "n" INTEGER)').run([]);
  await db
    .prepareText(
      `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 1000)
       INSERT INTO "posts" SELECT printf('%04d', i), 'body ' || i, i FROM k`,
    )
    .run([]);
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('statements that scan, on SQLite', () => {
  it('run on a worker and come back as this thread makes rows: objects of their columns', async () => {
    const scanning = db.prepareList(
      `SELECT "id", "n" FROM "posts" WHERE instr(lower("body"), lower(?)) > 0 ORDER BY "n" DESC LIMIT 3`,
      facts(['body']),
    );
    expect(await scanning.all(['body 99'], () => 'me')).toEqual([
      { id: '0999', n: 999 },
      { id: '0998', n: 998 },
      { id: '0997', n: 997 },
    ]);
  });

  it('see what this connection wrote and committed (WAL)', async () => {
    await db.prepareText(`INSERT INTO "posts" VALUES ('9999', 'a new body', 5000)`).run([]);
    const scanning = db.prepareList(
      `SELECT "id" FROM "posts" WHERE instr(lower("body"), lower(?)) > 0 ORDER BY "id" LIMIT 5`,
      facts(['body']),
    );
    expect(await scanning.all(['new'], () => 'me')).toEqual([{ id: '9999' }]);
  });

  it('leave this thread free while they run', async () => {
    // a statement that takes a while: it counts to `?` before it compares
    const slow = db.prepareList(
      `SELECT "id" FROM "posts" WHERE "n" > (WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
       SELECT count(*) - ? FROM k) ORDER BY "id" LIMIT 1`,
      facts(['n']),
    );
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    const started = Date.now();
    try {
      expect(await slow.all([2_000_000, 2_000_000], () => 'me')).toEqual([{ id: '0001' }]);
    } finally {
      clearInterval(timer);
    }
    // the timer ran while the statement did (on this thread it could not have until the statement had ended)
    expect(Date.now() - started).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThan(2);
  });

  it('report an error of the statement as an error, and the worker serves the next', async () => {
    const broken = db.prepareList(
      `SELECT "id" FROM "posts" WHERE "body" = json(?) ORDER BY "id" LIMIT 1`,
      facts(['body']),
    );
    await expect(broken.all(['not json'], () => 'me')).rejects.toThrow(/malformed JSON/);
    const next = db.prepareList(`SELECT "id" FROM "posts" WHERE "n" >= ? ORDER BY "n" LIMIT 1`, facts(['n']));
    expect(await next.all([1000], () => 'me')).toEqual([{ id: '1000' }]);
  });

  it('start no worker once the database is closed, and an idle worker keeps no process alive', async () => {
    const file = join(dir, 'other.db');
    const other = openSqlite(file, { slots: 1, queue: 1, perClient: 5, timeoutMs: 5_000 });
    await other.prepareText('CREATE TABLE "posts" ("id" TEXT PRIMARY KEY, "body" TEXT)').run([]);
    const scanning = other.prepareList(
      `SELECT "id" FROM "posts" WHERE instr("body", ?) > 0 ORDER BY "id" LIMIT 1`,
      facts(['body']),
    );
    await other.close();
    await expect(scanning.all(['x'], () => 'me')).rejects.toBeInstanceOf(DatabaseUnavailableError);
    // a process that ran a scan and never closed its database still ends when it has nothing else to do
    const script = `
      import { openSqlite } from ${JSON.stringify(new URL('../../runtime/src/db/sqlite.ts', import.meta.url).href)};
      const db = openSqlite(${JSON.stringify(file)});
      await db.prepareText('CREATE TABLE IF NOT EXISTS "posts" ("id" TEXT PRIMARY KEY, "body" TEXT)').run([]);
      const rows = await db.prepareList('SELECT "id" FROM "posts" WHERE instr("body", ?) > 0 ORDER BY "id" LIMIT 1',
        { table: 'posts', conditions: ['body'] }).all(['x'], () => 'me');
      console.log(JSON.stringify(rows));`;
    const ended = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { timeout: 20_000 },
        (error, stdout) => (error === null ? resolve(stdout.trim()) : reject(error)),
      ),
    );
    expect(ended).toBe('[]');
  });
});
