import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelationLink, RelationTarget } from '../../runtime/src/relations/embed.js';
import { toManySql } from '../../runtime/src/relations/sql.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * The PostgreSQL statement of an embedded to-many page: each parent's page is a walk of the `(ref, id)` index that
 * stops at the page (LATERAL … LIMIT), not a ranking of every child of every parent (ROW_NUMBER() over a parent of
 * 300,000 children took 2 s of a pooled connection).
 */
const link: RelationLink = { kind: 'many', target: 'children', field: 'parentId', column: 'parent_id' };
const target = (idKind: 'text' | 'integer'): RelationTarget => ({
  table: `children_${idKind}`,
  columns: ['id', 'parent_id'],
  idKind,
  read: { owner: true },
  owner: { columns: ['owner_id'], kind: 'text', value: (s) => s },
  decode: (row) => row,
  cursorAfter: () => '',
});
const key = (idKind: 'text' | 'integer', n: number) => (idKind === 'integer' ? n : `id-${String(n).padStart(6, '0')}`);
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: await databaseUrl('embed-plans') });
  await client.connect();
  for (const idKind of ['text', 'integer'] as const) {
    const table = `children_${idKind}`;
    const id = idKind === 'integer' ? `n` : `'id-' || lpad(n::text, 6, '0')`;
    await client.query(
      `CREATE TABLE "${table}" (id ${idKind === 'integer' ? 'bigint' : 'text'} PRIMARY KEY, parent_id text NOT NULL,
       owner_id text NOT NULL)`,
    );
    await client.query(`CREATE INDEX "${table}_parent_id_idx" ON "${table}" (parent_id, id)`);
    await client.query(`CREATE INDEX "${table}_owner_id_idx" ON "${table}" (owner_id, id)`);
    // parent "big" has 50,000 children, "small" has 3; every third one is alice's
    await client.query(
      `INSERT INTO "${table}" SELECT ${id}, CASE WHEN n <= 50000 THEN 'big' ELSE 'small' END,
       CASE WHEN n % 3 = 0 THEN 'alice' ELSE 'bob' END FROM generate_series(1, 50003) AS n`,
    );
    await client.query(`ANALYZE "${table}"`);
  }
});

afterAll(async () => {
  await client.end();
});

describe.each(['text', 'integer'] as const)('toManySql on PostgreSQL, %s ids', (idKind) => {
  it.each([null, 'alice'])('walks the index per parent and stops at the page (scope %s)', async (scope) => {
    const { sql, params } = toManySql('postgres', link, target(idKind), JSON.stringify(['big', 'small']), 'text', {
      scope,
      joinScope: false,
      rows: 5,
    });
    const { rows: plan } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`,
      params,
    );
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).not.toMatch(/WindowAgg|Sort/);
    expect(text).toMatch(/Limit/);
    // no node reads more rows than a page of both parents, whoever owns them (loops=2: one walk per parent)
    const read = [...text.matchAll(/actual rows=(\d+(?:\.\d+)?) loops=(\d+)/g)].map((m) => Number(m[1]) * Number(m[2]));
    expect(Math.max(...read)).toBeLessThanOrEqual(10);
    const removed = [...text.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(removed).toBeLessThanOrEqual(20);

    const { rows } = await client.query<{ id: string | number; parent_id: string }>({ text: sql, values: params });
    const mine = (n: number) => scope === null || n % 3 === 0;
    const expected = (parent: string, from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => from + i)
        .filter(mine)
        .slice(0, 5)
        .map((n) => [key(idKind, n), parent]);
    // rows come grouped by parent in any order: sorted by parent, then id (integers as numbers)
    const got: [string | number, string][] = rows.map((row) => [
      idKind === 'integer' ? Number(row.id) : row.id,
      row.parent_id,
    ]);
    got.sort(([a, p], [b, r]) =>
      p !== r ? (p < r ? -1 : 1) : typeof a === 'number' && typeof b === 'number' ? a - b : a < b ? -1 : 1,
    );
    expect(got).toEqual([...expected('big', 1, 50000), ...expected('small', 50001, 50003)]);
  });
});
