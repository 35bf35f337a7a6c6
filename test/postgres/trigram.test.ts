import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filterParams,
  listSql,
  servedByTrigram,
  type ListColumn,
  type ListShape,
} from '../../runtime/src/db/list-sql.js';
import { diff } from '../../src/migrate/diff.js';
import { postgresMigration } from '../../src/migrate/postgres.js';
import { createSchema } from '../../src/schema/ddl.js';
import { postgres } from '../../src/schema/dialect.js';
import type { Snapshot } from '../../src/schema/snapshot.js';
import { databaseUrl } from '../helpers/database.js';
import { NEEDLES, TEXTS } from '../runtime/trigram-strings.js';
import { column } from '../unit/migrate/snapshots.js';

/** `contains` on a column with `index: trigram` on PostgreSQL: a GIN index of pg_trgm over lower(column). */
const id: ListColumn = { column: 'id', kind: 'integer', notNull: true };
const plain: ListColumn = { column: 'title', kind: 'text' };
const title: ListColumn = { ...plain, trigram: { table: 'indexed_title_trgm' } };

const posts = (table: string, trigram: boolean): Snapshot => ({
  tables: [
    {
      name: table,
      resource: table,
      id: 'integer',
      columns: [column('title', { ...(trigram && { trigram: true }) })],
      indexOrder: 'id',
    },
  ],
});

let client: pg.Client;

const run = async (statements: readonly string[]): Promise<void> => {
  for (const statement of statements) await client.query(statement);
};

async function insert(table: string, texts: readonly string[]): Promise<void> {
  await client.query(
    `INSERT INTO "${table}" ("title", "created_at", "updated_at") SELECT t, now(), now() FROM unnest($1::text[]) AS t`,
    [texts],
  );
}

beforeAll(async () => {
  client = new pg.Client({ connectionString: await databaseUrl('trigram') });
  await client.connect();
  // "exact" has no index; "indexed" gains it by a migration, after rows are in (the index is built from them)
  await run(createSchema(posts('exact', false), postgres));
  await run(createSchema(posts('indexed', false), postgres));
  await insert('exact', TEXTS);
  await insert('indexed', TEXTS);
  await run(
    postgresMigration(diff(posts('indexed', false), posts('indexed', true), new Map()), posts('indexed', true)),
  );
});

afterAll(async () => {
  await client.end();
});

const shapeOf = (column: ListColumn, trigram: boolean): ListShape => ({
  filters: [{ column, op: 'contains', ...(trigram && { trigram: true as const }) }],
  sort: [{ column: id, descending: false }],
});

async function contains(table: string, column: ListColumn, value: string): Promise<unknown[]> {
  const shape = shapeOf(column, servedByTrigram(column, 'contains', value));
  const params = [...filterParams(shape.filters[0]!, [value], 'postgres'), 1_000_000];
  const { rows } = await client.query<{ id: string }>(listSql(table, '"id"', shape, 'postgres'), params);
  return rows.map((row) => row.id);
}

describe('contains served by a trigram index on PostgreSQL', () => {
  it('lists the same rows as the exact condition alone, whatever the texts and the value', async () => {
    await fc.assert(
      fc.asyncProperty(NEEDLES, async (needle) => {
        expect(await contains('indexed', title, needle)).toEqual(await contains('exact', plain, needle));
      }),
      { numRuns: 300 },
    );
    // LIKE's wildcards in a value are characters: '%' matches only a '%'
    expect(await contains('indexed', title, 'a%b')).toEqual(await contains('exact', plain, 'a%b'));
    // a value longer than the LIKE pattern (its first 32 characters): the exact condition decides on the rest
    const long = `${'Ab%_'.repeat(10)}\\z`;
    for (const table of ['exact', 'indexed']) await insert(table, [long, long.slice(0, 40), long.toLowerCase()]);
    for (const needle of [long, long.slice(0, 33), long.slice(1), `${long}z`]) {
      const want = await contains('exact', plain, needle);
      expect(await contains('indexed', title, needle)).toEqual(want);
    }
    expect(await contains('indexed', title, long)).toHaveLength(2);
  });

  it('creates pg_trgm once in a migration, however many fields gain the index', () => {
    const two = (trigram: boolean): Snapshot => ({
      tables: [
        {
          ...posts('two', trigram).tables[0]!,
          columns: [column('title', { ...(trigram && { trigram }) }), column('body', { ...(trigram && { trigram }) })],
        },
      ],
    });
    const once = (statements: string[]): number => statements.filter((s) => s.includes('CREATE EXTENSION')).length;
    expect(once(postgresMigration(diff(two(false), two(true), new Map()), two(true)))).toBe(1);
    expect(once(postgresMigration(diff({ tables: [] }, two(true), new Map()), two(true)))).toBe(1);
    expect(once(createSchema(two(true), postgres))).toBe(1);
  });

  it('drops the index when the field loses index: trigram, keeping the rows', async () => {
    const count = async (): Promise<unknown> => (await client.query('SELECT count(*) AS n FROM "indexed"')).rows[0];
    const before = await count();
    await run(
      postgresMigration(diff(posts('indexed', true), posts('indexed', false), new Map()), posts('indexed', false)),
    );
    expect(await count()).toEqual(before);
    const { rows } = await client.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'indexed'`);
    expect(rows.map((row) => row.indexname)).toEqual(['indexed_pkey']);
  });

  it('reads the GIN index', async () => {
    await client.query('CREATE TABLE "many" AS SELECT * FROM "indexed" WHERE FALSE');
    await client.query('ALTER TABLE "many" ADD PRIMARY KEY ("id")');
    await client.query(
      `INSERT INTO "many" SELECT n, 'post ' || md5(n::text), now(), now(), 1 FROM generate_series(1, 20000) AS n`,
    );
    await run(postgresMigration(diff(posts('many', false), posts('many', true), new Map()), posts('many', true)));
    await client.query('ANALYZE "many"');
    const shape = shapeOf(title, true);
    const params = [...filterParams(shape.filters[0]!, ['abcdef'], 'postgres'), 21];
    await client.query('SET enable_seqscan = off');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN ${listSql('many', '"id"', shape, 'postgres')}`,
      params,
    );
    await client.query('RESET enable_seqscan');
    expect(rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/Bitmap Index Scan on many_title_trgm/);
  });
});
