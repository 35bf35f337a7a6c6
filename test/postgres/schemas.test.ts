import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, loadBuilt, ROOT, typecheckAndBuild } from '../helpers/project.js';

/** A database whose search_path names another schema than `public` (as the generated tests' own schema does). */
let dist: string;

beforeAll(async () => {
  const dir = await generateFresh(join(ROOT, 'test/e2e/fixtures/shop.yaml'), 'pg-schemas');
  await typecheckAndBuild(dir);
  dist = join(dir, 'dist');
});

interface Db {
  kysely: () => Promise<unknown>;
  close: () => Promise<void>;
}
const load = <T>(path: string): Promise<T> => loadBuilt<T>(dist, path);

/** The migrations applied to the database at `url`, and whether Kysely was needed for it. */
async function migrateAt(url: string): Promise<{ applied: string[]; kysely: boolean }> {
  const { openDatabase } = await load<{ openDatabase: (url: string) => Db }>('db/open.js');
  const { migrate } = await load<{ migrate: (db: Db) => Promise<string[]> }>('db/migrate.js');
  const db = openDatabase(url);
  let kysely = false;
  try {
    const applied = await migrate({
      ...db,
      kysely: () => {
        kysely = true;
        return db.kysely();
      },
    });
    return { applied, kysely };
  } finally {
    await db.close();
  }
}

async function tablesOf(url: string, schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe('migrations in a schema of their own', () => {
  it('migrate into the first schema of the search_path, though public already holds the same tables', async () => {
    const url = await databaseUrl('schemas');
    expect((await migrateAt(url)).applied.length).toBeGreaterThan(0);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE SCHEMA other');
    await client.end();
    const inOther = new URL(url);
    inOther.searchParams.set('options', '-c search_path=other');

    // Kysely found public's lock table by its name and never made one in `other`: "relation … does not exist"
    expect((await migrateAt(inOther.toString())).applied.length).toBeGreaterThan(0);
    const other = await tablesOf(url, 'other');
    expect(other).toContain('restsmith_migrations');
    expect(other).toContain('restsmith_migrations_lock');
    expect(other).toEqual(await tablesOf(url, 'public'));
    // each schema knows what it ran: nothing is pending in either, which one query tells without Kysely
    expect(await migrateAt(inOther.toString())).toEqual({ applied: [], kysely: false });
    expect(await migrateAt(url)).toEqual({ applied: [], kysely: false });
  });
});
