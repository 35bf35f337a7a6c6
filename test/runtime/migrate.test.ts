import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { migrate } from '../../runtime/src/db/migrate.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';

// the project's migrations (a stand-in lists none in this repository)
vi.mock('../../runtime/src/db/migrations/index.js', () => ({
  migrations: {
    '0001-initial': { sqlite: ['CREATE TABLE "notes" ("id" TEXT PRIMARY KEY)'], postgres: [] },
    '0002-add-notes-body': { sqlite: ['ALTER TABLE "notes" ADD COLUMN "body" TEXT'], postgres: [] },
  },
}));

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'restsmith-migrate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The database of `file`, migrated; and how many times migrate asked for Kysely. */
async function migrateCounting(file: string): Promise<{ applied: string[] | Error; kyselyAsked: number }> {
  const db = openSqlite(file);
  let kyselyAsked = 0;
  const counting: Database = {
    ...db,
    kysely: () => {
      kyselyAsked += 1;
      return db.kysely();
    },
  };
  try {
    return { applied: await migrate(counting).catch((error: Error) => error), kyselyAsked };
  } finally {
    await db.close();
  }
}

describe('migrate', () => {
  it('applies what is pending with Kysely, and finds nothing pending without loading it', async () => {
    const file = join(dir, 'api.db');
    expect(await migrateCounting(file)).toEqual({ applied: ['0001-initial', '0002-add-notes-body'], kyselyAsked: 1 });
    expect(await migrateCounting(file)).toEqual({ applied: [], kyselyAsked: 0 });
  });

  it('leaves a database with a migration missing, or one this code does not know, to the migrator', async () => {
    const file = join(dir, 'api.db');
    await migrateCounting(file);
    const db = openSqlite(file);
    await db.prepareText(`DELETE FROM "restsmith_migrations" WHERE "name" = '0002-add-notes-body'`).run([]);
    await db.close();
    // Kysely applies it again: the column is there already
    const again = await migrateCounting(file);
    expect(again.kyselyAsked).toBe(1);
    expect(String(again.applied)).toMatch(/migration 0002-add-notes-body failed.*duplicate column name: body/);

    const other = openSqlite(file);
    await other
      .prepareText(`INSERT INTO "restsmith_migrations" ("name", "timestamp") VALUES ('0003-later', 'x')`)
      .run([]);
    await other.close();
    const later = await migrateCounting(file);
    expect(later.kyselyAsked).toBe(1);
    expect(String(later.applied)).toMatch(/cannot migrate the database: corrupted migrations.*0003-later/);
  });
});
