import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { postgresCost } from '../../runtime/src/db/cost.js';
import { openPostgres } from '../../runtime/src/db/postgres.js';
import { classify, SCHEMA, SHAPES } from '../helpers/cost-shapes.js';
import { databaseUrl } from '../helpers/database.js';

let db: Database;
const run = (sql: string): Promise<number> => db.prepareText(sql, { transient: true }).run([]);

beforeAll(async () => {
  db = openPostgres(await databaseUrl('cost'), 2);
  for (const sql of SCHEMA('postgres')) await run(sql);
});

afterAll(async () => {
  await db.close();
});

describe('the cost class of a listing statement on PostgreSQL, from its generic plan', () => {
  it('is the one each shape wants, on an empty table and a filled, analysed one alike', async () => {
    const want = SHAPES.map(([name, , cost]) => [name, cost]);
    expect(await classify(db)).toEqual(want);
    await run(`INSERT INTO "users" SELECT 'u' || n, 'FR' FROM generate_series(1, 100) AS n`);
    await run(
      `INSERT INTO "posts" SELECT lpad(n::text, 8, '0'), 'post ' || n, 'body ' || n, n % 100, 'u' || (n % 100 + 1), 'u' || ((n * 7) % 100 + 1),
         '2024-01-01'::timestamptz + n * interval '1 second' FROM generate_series(1, 20000) AS n`,
    );
    await run('ANALYZE');
    expect(await classify(db)).toEqual(want);
  });

  it.each<[string, object, string]>([
    ['an index scan in order', { 'Node Type': 'Limit', Plans: [{ 'Node Type': 'Index Scan' }] }, 'cheap'],
    ['a seq scan', { 'Node Type': 'Limit', Plans: [{ 'Node Type': 'Seq Scan' }] }, 'scans'],
    [
      'a sort',
      { 'Node Type': 'Limit', Plans: [{ 'Node Type': 'Sort', Plans: [{ 'Node Type': 'Index Scan' }] }] },
      'scans',
    ],
    [
      'a sort of limited pages',
      {
        'Node Type': 'Limit',
        Plans: [
          {
            'Node Type': 'Sort',
            Plans: [
              {
                'Node Type': 'Append',
                Plans: [
                  { 'Node Type': 'Limit', Plans: [{ 'Node Type': 'Index Scan' }] },
                  { 'Node Type': 'Limit', Plans: [{ 'Node Type': 'Index Scan' }] },
                ],
              },
            ],
          },
        ],
      },
      'cheap',
    ],
    [
      'a sort of one limited page and a table',
      {
        'Node Type': 'Sort',
        Plans: [
          {
            'Node Type': 'Append',
            Plans: [{ 'Node Type': 'Limit', Plans: [{ 'Node Type': 'Index Scan' }] }, { 'Node Type': 'Index Scan' }],
          },
        ],
      },
      'scans',
    ],
    ['a residual filter', { 'Node Type': 'Index Scan', Filter: '(strpos(...) > 0)' }, 'scans'],
    [
      'an in list',
      {
        'Node Type': 'Nested Loop',
        Plans: [{ 'Node Type': 'Function Scan', Filter: 'x' }, { 'Node Type': 'Index Scan' }],
      },
      'cheap',
    ],
  ])('%s', (_case, plan, want) => {
    expect(postgresCost(plan as never)).toBe(want);
  });
});
