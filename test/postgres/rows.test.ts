import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { openPostgres } from '../../runtime/src/db/postgres.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * The PostgreSQL driver reads rows as arrays and makes the objects itself (db/postgres.ts, rowMaker): they must be the
 * rows pg makes, key for key and in the same order, whatever the statement selects.
 */
describe('PostgreSQL rows', () => {
  let url: string;
  let db: Database;
  let own: pg.Client;
  beforeAll(async () => {
    url = await databaseUrl('rows');
    own = new pg.Client({ connectionString: url });
    await own.connect();
    await own.query('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, note TEXT)');
    await own.query("INSERT INTO t VALUES ('a', 1, NULL), ('b', 2, 'it''s')");
    db = openPostgres(url, 2);
  });
  afterAll(async () => {
    await db.close();
    await own.end();
  });

  /** what pg itself makes of the statement */
  const oracle = async (sql: string, params: unknown[] = []): Promise<unknown[]> => (await own.query(sql, params)).rows;

  it.each([
    ['every column', 'SELECT * FROM t ORDER BY id', []],
    ['some, renamed and computed', 'SELECT note AS "the note", n * 2 AS twice, id FROM t ORDER BY id DESC', []],
    ['a name twice: the last one wins', 'SELECT id AS v, n AS v FROM t ORDER BY id', []],
    ['no row', 'SELECT id FROM t WHERE id = $1', ['none']],
    ['parameters', 'SELECT id, $1::text AS given FROM t WHERE n >= $2', ['x', 2]],
    ['names that are not identifiers', 'SELECT id AS "a""b\\c d", n AS "1", note AS "ü\u2028`${x}`" FROM t', []],
    ['a write that returns its row', "UPDATE t SET n = n WHERE id = 'b' RETURNING id, n, note", []],
  ])('%s', async (_, sql, params) => {
    const want = await oracle(sql, params);
    const got = await db.prepareText(sql).all(params as never);
    expect(got).toEqual(want);
    expect(got.map((row) => Object.keys(row))).toEqual(want.map((row) => Object.keys(row as object)));
    expect(await db.prepareText(sql).get(params as never)).toEqual(want[0]);
    // run twice: the second run uses the function made from the first one's columns
    expect(await db.prepareText(sql).all(params as never)).toEqual(want);
  });

  it('holds a column named __proto__ as its own, as pg does', async () => {
    const sql = 'SELECT id AS "constructor", n AS "__proto__", note AS "toString" FROM t ORDER BY id';
    const [row] = await db.prepareText(sql).all([]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row ?? {})).toEqual([
      ['constructor', 'a'],
      ['__proto__', 1],
      ['toString', null],
    ]);
    expect(row).toEqual((await oracle(sql))[0]);
  });

  it('keeps the rows right when the table changes under the statement: SELECT *, TABLE (found by a reviewer)', async () => {
    // a pool of its own, of two connections: the first prepares the statements, the second only after the change
    const two = openPostgres(url, 2);
    try {
      const everything = two.prepareText('SELECT * FROM t ORDER BY id');
      const table = two.prepareText('TABLE t ORDER BY id');
      const named = two.prepareText('SELECT id, note FROM t ORDER BY id');
      expect(await everything.get([])).toEqual({ id: 'a', n: 1, note: null });
      expect(await table.get([])).toEqual({ id: 'a', n: 1, note: null });
      expect(await named.get([])).toEqual({ id: 'a', note: null });
      await own.query("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'");
      // the first connection is kept busy (a statement prepared before the change fails there, as PostgreSQL says
      // "cached plan must not change result type"): the statements run on a second one, prepared anew
      const [, rows, first, row] = await Promise.all([
        two.prepareText('SELECT pg_sleep(0.3)').get([]),
        everything.all([]),
        table.get([]),
        named.get([]),
      ]);
      expect(rows).toEqual([
        { id: 'a', n: 1, note: null, extra: 'x' },
        { id: 'b', n: 2, note: "it's", extra: 'x' },
      ]);
      expect(first).toEqual({ id: 'a', n: 1, note: null, extra: 'x' });
      expect(row).toEqual({ id: 'a', note: null });
    } finally {
      await own.query('ALTER TABLE t DROP COLUMN extra');
      await two.close();
    }
  });
});
