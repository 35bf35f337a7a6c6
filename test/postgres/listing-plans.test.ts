import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysetParams, listSql, type ListColumn, type ListShape } from '../../runtime/src/db/list-sql.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * A listing's page walks an index on PostgreSQL instead of sorting the table: its cost does not grow with the rows.
 * (Ordered `ASC NULLS FIRST`, PostgreSQL cannot use a default btree index of a NOT NULL primary key, and sorted the
 * whole table for every page: 56 pages a second at 45,000 rows in the benchmark.)
 */
const id: ListColumn = { column: 'id', kind: 'text', notNull: true };
const views: ListColumn = { column: 'views', kind: 'integer' };
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: await databaseUrl('listing-plans') });
  await client.connect();
  await client.query('CREATE TABLE "posts" ("id" text PRIMARY KEY, "views" bigint, "title" text NOT NULL)');
  await client.query(
    `INSERT INTO "posts" SELECT lpad(n::text, 8, '0'), CASE WHEN n % 7 = 0 THEN NULL ELSE n % 100 END, 'post ' || n
     FROM generate_series(1, 20000) AS n`,
  );
  await client.query('ANALYZE "posts"');
});

afterAll(async () => {
  await client.end();
});

/** The plan PostgreSQL chooses for a shape, with these parameter values. */
async function plan(shape: ListShape, params: unknown[]): Promise<string> {
  const sql = listSql('posts', '*', shape, 'postgres');
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

describe('the plan of a listing page on PostgreSQL', () => {
  it.each<[string, ListShape, unknown[]]>([
    ['the first page by id', { filters: [], sort: [{ column: id, descending: false }] }, [21]],
    [
      'a next page by id',
      { filters: [], sort: [{ column: id, descending: false }], afterNulls: [false] },
      [...keysetParams(['00015000']), 21],
    ],
    ['the first page by -id', { filters: [], sort: [{ column: id, descending: true }] }, [21]],
    [
      'a next page by -id',
      { filters: [], sort: [{ column: id, descending: true }], afterNulls: [false] },
      [...keysetParams(['00015000']), 21],
    ],
  ])('%s: an index scan, no sort', async (_case, shape, params) => {
    const chosen = await plan(shape, params);
    expect(chosen).toMatch(/Index Scan/);
    expect(chosen).not.toMatch(/Sort/);
  });

  it('sorts by a column that may hold NULLs when it has no index (as it must)', async () => {
    const chosen = await plan(
      {
        filters: [],
        sort: [
          { column: views, descending: true },
          { column: id, descending: false },
        ],
      },
      [21],
    );
    expect(chosen).toMatch(/Sort/);
  });
});
