import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateFresh, loadBuilt, ROOT, typecheckAndBuild } from '../helpers/project.js';

/**
 * What listings make the database keep is bounded whatever the clients ask: one statement per canonical query shape
 * (filter order and the number of `in` values do not make new shapes), at most 256 in memory, and on PostgreSQL
 * only the first 64 shapes are named statements kept by every connection. Driven through the generated Listing
 * with a database that records what it is asked to prepare.
 */
type Prepared = { text: string; transient: boolean };
interface ListingModule {
  Listing: new (
    db: unknown,
    spec: unknown,
    key: Buffer,
  ) => { page(query: Record<string, unknown>, owner: string | null): Promise<unknown> };
}

let Listing: ListingModule['Listing'];
const spec = {
  table: 'tasks',
  selectList: '*',
  columns: {
    id: { column: 'id', kind: 'integer' },
    title: { column: 'title', kind: 'text' },
    priority: { column: 'priority', kind: 'integer' },
  },
};

function recorder(dialect: 'sqlite' | 'postgres'): { db: unknown; prepared: Prepared[] } {
  const prepared: Prepared[] = [];
  const statement = { all: async () => [], get: async () => undefined, run: async () => 0 };
  const db = {
    dialect,
    prepareText: (text: string, options?: { transient?: boolean }) => {
      prepared.push({ text, transient: options?.transient === true });
      return statement;
    },
    prepareList: (text: string, _facts: unknown, options?: { transient?: boolean }) => {
      prepared.push({ text, transient: options?.transient === true });
      return statement;
    },
  };
  return { db, prepared };
}

beforeAll(async () => {
  const dir = await generateFresh(join(ROOT, 'examples/tasks.yaml'), 'e2e-listing-shapes');
  await typecheckAndBuild(dir);
  ({ Listing } = await loadBuilt<ListingModule>(join(dir, 'dist'), 'http/listing.js'));
});

describe('listing statements', () => {
  it('are one per canonical shape: filter order and the number of in-values make no new statement', async () => {
    // queries as the validator leaves them: an `in` list is an array (see strictParameters)
    const { db, prepared } = recorder('postgres');
    const listing = new Listing(db, spec, Buffer.alloc(32));
    await listing.page({ limit: 10, 'priority[in]': ['1'] }, null);
    await listing.page({ limit: 10, 'priority[in]': ['1', '2', '3', '4', '5'] }, null);
    await listing.page({ limit: 10, title: 'a', 'priority[gte]': 2 }, null);
    await listing.page({ limit: 10, 'priority[gte]': 3, title: 'b' }, null);
    expect(prepared).toHaveLength(2);
    expect(prepared[0]?.text).toContain('jsonb_array_elements_text');
  });

  it('keep at most 64 named statements on PostgreSQL, however many shapes clients invent', async () => {
    const { db, prepared } = recorder('postgres');
    const listing = new Listing(db, spec, Buffer.alloc(32));
    const ops = ['', '[ne]', '[gt]', '[gte]', '[lt]', '[lte]', '[in]'];
    // 7 × 7 × 7 × 2 sorts = 686 shapes: far more than either bound
    for (const a of ops)
      for (const b of ops)
        for (const c of ops)
          for (const sort of ['id', '-id']) {
            const query: Record<string, unknown> = { limit: 5, sort };
            if (a !== '') query[`id${a}`] = '1';
            if (b !== '') query[`priority${b}`] = '2';
            if (c !== '' && c !== '[gt]') query[`title${c}`] = 'x';
            await listing.page(query, null);
          }
    expect(prepared.length).toBeGreaterThan(300);
    expect(prepared.filter((p) => !p.transient)).toHaveLength(64);
    // a first shape stays named after it left the 256 in memory: the same name, which connections keep already
    const first = prepared[0];
    await listing.page({ limit: 5, sort: 'id' }, null);
    expect(prepared.at(-1)).toEqual({ text: first?.text, transient: false });
  });
});

describe('a contains on a field with a trigram index', () => {
  const owned = {
    ...spec,
    columns: {
      ...spec.columns,
      title: { column: 'title', kind: 'text', trigram: { table: 'tasks_title_trgm' } },
      ownerId: { column: 'owner_id', kind: 'text' },
    },
    ownerColumns: ['owner_id'],
  };
  const index = { sqlite: /MATCH/, postgres: /LIKE/ } as const;

  it.each(['sqlite', 'postgres'] as const)(
    'reads the index for every record, and the owner’s records alone for one owner (%s)',
    async (dialect) => {
      // the index's candidates are everyone's records that hold the value: their number would show in the time an
      // owner's listing takes, so an owner's reads the owner's index
      const { db, prepared } = recorder(dialect);
      const listing = new Listing(db, owned, Buffer.alloc(32));
      await listing.page({ limit: 10, 'title[contains]': 'quokka' }, null);
      await listing.page({ limit: 10, 'title[contains]': 'quokka' }, 'alice');
      expect(prepared).toHaveLength(2);
      expect(prepared[0]?.text).toMatch(index[dialect]);
      expect(prepared[1]?.text).toMatch(/owner_id/);
      expect(prepared[1]?.text).not.toMatch(index[dialect]);
    },
  );
});
