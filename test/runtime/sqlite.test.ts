import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConstraintError, type Database } from '../../runtime/src/db/database.js';
import { MMAP_BYTES, openSqlite } from '../../runtime/src/db/sqlite.js';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';

/**
 * The SQLite driver reads rows raw and makes the objects itself (db/sqlite.ts): they must be the rows better-sqlite3
 * makes, key for key and in the same order, whatever the statement selects.
 */
describe('SQLite rows', () => {
  let db: Database;
  beforeEach(async () => {
    db = openSqlite(':memory:');
    await db.prepareText('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, b BLOB, note TEXT)').run([]);
    await db.prepareText("INSERT INTO t VALUES ('a', 1, 1.5, x'00ff', NULL), ('b', 2, NULL, NULL, 'it''s')").run([]);
  });
  afterEach(async () => db.close());

  /** what better-sqlite3 itself makes of the statement */
  const oracle = (sql: string, params: unknown[] = [], raw = false): unknown[] => {
    const own = new BetterSqlite3(':memory:');
    own.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, b BLOB, note TEXT)');
    own.exec("INSERT INTO t VALUES ('a', 1, 1.5, x'00ff', NULL), ('b', 2, NULL, NULL, 'it''s')");
    const rows = own
      .prepare(sql)
      .raw(raw)
      .all(...params);
    own.close();
    return rows;
  };

  it.each([
    ['every column', 'SELECT * FROM t ORDER BY id', []],
    ['some, renamed and computed', 'SELECT note AS "the note", n * 2 AS twice, id FROM t ORDER BY id DESC', []],
    ['a name twice: the last one wins', 'SELECT id AS v, n AS v FROM t ORDER BY id', []],
    ['no row', 'SELECT id FROM t WHERE id = ?', ['none']],
    ['parameters', 'SELECT id, ? AS given FROM t WHERE n >= ?', ['x', 2]],
    // each row's object is written as code from the names (rowMaker): names no identifier could be
    ['names that are not identifiers', 'SELECT id AS "a""b\\c d", n AS "1", note AS "ü\u2028`${x}`" FROM t', []],
  ])('%s', async (_, sql, params) => {
    const want = oracle(sql, params);
    const got = await db.prepareText(sql).all(params);
    expect(got).toEqual(want);
    expect(got.map((row) => Object.keys(row))).toEqual(want.map((row) => Object.keys(row as object)));
    expect(await db.prepareText(sql).get(params)).toEqual(want[0]);
    expect(await db.prepareText(sql).values(params)).toEqual(oracle(sql, params, true));
  });

  it("holds a column named as one of Object.prototype's as its own (better-sqlite3 sets `__proto__` instead)", async () => {
    const sql = 'SELECT id AS "constructor", n AS "__proto__", x AS "toString" FROM t ORDER BY id';
    const [row] = await db.prepareText(sql).all([]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row ?? {})).toEqual([
      ['constructor', 'a'],
      ['__proto__', 1],
      ['toString', 1.5],
    ]);
  });

  it('keeps the rows of a SELECT * right when the table changes under the statement (found by a reviewer)', async () => {
    const everything = db.prepareText('SELECT * FROM t ORDER BY id');
    const named = db.prepareText('SELECT id, note FROM t ORDER BY id');
    await db.prepareText("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'").run([]);
    expect((await everything.get([])) as object).toEqual({
      id: 'a',
      n: 1,
      x: 1.5,
      b: Buffer.from([0, 255]),
      note: null,
      extra: 'x',
    });
    await db.prepareText('ALTER TABLE t DROP COLUMN n').run([]);
    await db.prepareText('ALTER TABLE t RENAME COLUMN extra TO renamed').run([]);
    expect(Object.keys((await everything.get([])) ?? {})).toEqual(['id', 'x', 'b', 'note', 'renamed']);
    expect(await everything.values([])).toEqual([
      ['a', 1.5, Buffer.from([0, 255]), null, 'x'],
      ['b', null, null, "it's", 'x'],
    ]);
    // a statement that names its columns has the same ones whatever else the table gains
    expect(await named.all([])).toEqual([
      { id: 'a', note: null },
      { id: 'b', note: "it's" },
    ]);
  });

  it('counts what a statement wrote or read, and refuses rows of one that returns none', async () => {
    expect(await db.prepareText("UPDATE t SET n = n + 1 WHERE id <> 'z'").run([])).toBe(2);
    expect(await db.prepareText('DELETE FROM t WHERE id = ? RETURNING id').run(['a'])).toBe(1);
    await expect(db.prepareText('DELETE FROM t').get([])).rejects.toThrow('rows were asked of a statement');
  });

  it('returns objects from a transaction, and translates a constraint error', async () => {
    const insert = db.prepare<{ id: string }>('INSERT INTO t (id) VALUES (:id) RETURNING id, n');
    const seen: unknown[] = [];
    const rows = await db.atomically(insert.bind({ id: 'c' }), (first) => {
      seen.push(...first);
      return [];
    });
    expect(rows).toEqual([{ id: 'c', n: null }]);
    expect(seen).toEqual([{ id: 'c', n: null }]);
    await expect(insert.get({ id: 'c' })).rejects.toBeInstanceOf(ConstraintError);
  });

  it('prepares a statement naming a table or column not there yet at its first use (migrations pending)', async () => {
    const select = db.prepare<{ id: string }>('SELECT id, label FROM later WHERE id = :id');
    const insert = db.prepare<{ id: string }>('INSERT INTO t (id, added) VALUES (:id, 1)');
    await expect(select.get({ id: 'x' })).rejects.toThrow('no such table: later');
    await expect(insert.run({ id: 'x' })).rejects.toThrow('table t has no column named added');
    // a statement that cannot ever be prepared is refused at once
    expect(() => db.prepare('SELEC nothing')).toThrow(/syntax error/);
    // `npm run migrate` ran
    await db.prepareText('CREATE TABLE later (id TEXT PRIMARY KEY, label TEXT)').run([]);
    await db.prepareText("INSERT INTO later VALUES ('x', 'soon')").run([]);
    await db.prepareText('ALTER TABLE t ADD COLUMN added INTEGER').run([]);
    expect(await select.get({ id: 'x' })).toEqual({ id: 'x', label: 'soon' });
    expect(await insert.run({ id: 'x' })).toBe(1);
    // in a transaction as well, a write returning no rows
    await db.atomically(insert.bind({ id: 'y' }), () => []);
    expect(await db.prepareText('SELECT id FROM t WHERE added = 1 ORDER BY id').all([])).toEqual([
      { id: 'x' },
      { id: 'y' },
    ]);
  });
});

/**
 * SQLite checkpoints its WAL automatically (every 1,000 pages written) only when a statement that commits is stepped
 * to its end: a write that returns its row must be, or the WAL file grows with every write, without bound.
 */
describe('SQLite WAL', () => {
  let dir: string;
  let db: Database;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'restsmith-wal-'));
    db = openSqlite(join(dir, 'wal.db'));
    await db.prepareText('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, note TEXT)').run([]);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** the WAL's size in frames of the database's page size (each frame: a 24-byte header and a page) */
  const walFrames = (): number => {
    const own = new BetterSqlite3(join(dir, 'wal.db'), { readonly: true });
    const pageSize = Number(own.pragma('page_size', { simple: true }));
    own.close();
    return statSync(join(dir, 'wal.db-wal')).size / (pageSize + 24);
  };

  it.each([
    ['an insert', 'INSERT INTO t (id, n, note) VALUES (:i, :i, :note) RETURNING id, n'],
    ['an update', 'UPDATE t SET n = :i, note = :note WHERE id = 100000 + :i % 50 RETURNING id, n'],
    ['an update returning *', 'UPDATE t SET n = :i, note = :note WHERE id = 100000 + :i % 50 RETURNING *'],
  ])('stays bounded under writes that return their row: %s', async (_, sql) => {
    const fill = db.prepare<{ i: number }>('INSERT INTO t (id, n) VALUES (:i, :i)');
    for (let i = 0; i < 50; i += 1) await fill.run({ i: 100_000 + i });
    const write = db.prepare<{ i: number; note: string }>(sql);
    // each write a page or two of its own (a note of 3 KB): 3,000 writes are well over the checkpoint's 1,000 pages
    const note = 'x'.repeat(3000);
    for (let i = 0; i < 3000; i += 1) {
      const row = await write.get({ i, note });
      expect(row?.n).toBe(i);
    }
    expect(walFrames()).toBeLessThan(1500);
  });
});

/** SQLite follows a foreign key's cascade as a trigger, fewer than 1,000 deep: a deeper delete is a 409, never a 500. */
describe('a cascade deeper than SQLite follows (found by a reviewer)', () => {
  it('is a ConstraintError of its own, which the server answers 409', async () => {
    const db = openSqlite(':memory:');
    await db
      .prepareText('CREATE TABLE t (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES t(id) ON DELETE CASCADE)')
      .run([]);
    await db.prepareText('CREATE INDEX t_parent ON t (parent)').run([]);
    await db
      .prepareText(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1001)
         INSERT INTO t SELECT i, CASE WHEN i = 1 THEN NULL ELSE i - 1 END FROM n`,
      )
      .run([]);
    const remove = db.prepareText('DELETE FROM t WHERE id = ?');
    await expect(remove.run([1])).rejects.toMatchObject({ kind: 'depth' });
    const app = Fastify();
    installErrorHandlers(app);
    app.delete('/t/:id', async () => remove.run([1]));
    const response = await app.inject({ method: 'DELETE', url: '/t/1' });
    await app.close();
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      status: 409,
      detail: expect.stringContaining('1,000 or more refs deep'),
    });
    // 1,000 records below the one deleted are too many; 999 are not
    await db.prepareText('DELETE FROM t WHERE id = 1001').run([]);
    expect(await remove.run([1])).toBe(1);
    await db.close();
  });
});

describe('SQLite file access', () => {
  it('reads a database file through a memory map of MMAP_BYTES, not a read() a page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restsmith-mmap-'));
    const db = openSqlite(join(dir, 'app.db'));
    try {
      expect(await db.prepareText('PRAGMA mmap_size').get([])).toEqual({ mmap_size: MMAP_BYTES });
      expect(MMAP_BYTES).toBeGreaterThanOrEqual(256 * 1024 * 1024);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
