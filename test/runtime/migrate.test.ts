import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { migrate } from '../../runtime/src/db/migrate.js';
import { pendingMigrations, readStanding } from '../../runtime/src/db/migration-book.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';

// the project's migrations (a stand-in lists none in this repository): 0002 additive, 0001 written by a restsmith
// from before the marks (none: not additive)
vi.mock('../../runtime/src/db/migrations/index.js', () => ({
  migrations: {
    '0001-initial': { sqlite: ['CREATE TABLE "notes" ("id" TEXT PRIMARY KEY)'], postgres: [] },
    '0002-add-notes-body': { additive: true, sqlite: ['ALTER TABLE "notes" ADD COLUMN "body" TEXT'], postgres: [] },
  },
}));

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'restsmith-migrate-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

/** The database of `file`, migrated; and how many times migrate asked for Kysely. */
async function migrateCounting(
  file: string,
  mode: 'start' | 'apply' = 'start',
): Promise<{ applied: string[] | Error; kyselyAsked: number }> {
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
    return { applied: await migrate(counting, mode).catch((error: Error) => error), kyselyAsked };
  } finally {
    await db.close();
  }
}

/** Runs `text` on the database of `file` (what a newer build, or an older runtime, would have done). */
async function sql(file: string, text: string): Promise<Record<string, unknown>[]> {
  const db = openSqlite(file);
  try {
    return text.startsWith('SELECT') ? await db.prepareText(text).all([]) : (await db.prepareText(text).run([]), []);
  } finally {
    await db.close();
  }
}

const book = (file: string) => sql(file, 'SELECT "name", "additive" FROM "restsmith_migrations" ORDER BY "name"');

describe('migrate', () => {
  it('applies what is pending with Kysely, and finds nothing pending without loading it', async () => {
    const file = join(dir, 'api.db');
    expect(await migrateCounting(file)).toEqual({ applied: ['0001-initial', '0002-add-notes-body'], kyselyAsked: 1 });
    expect(await migrateCounting(file)).toEqual({ applied: [], kyselyAsked: 0 });
  });

  it('records each migration with its mark: additive, or not', async () => {
    const file = join(dir, 'api.db');
    await migrateCounting(file);
    expect(await book(file)).toEqual([
      { name: '0001-initial', additive: 0 },
      { name: '0002-add-notes-body', additive: 1 },
    ]);
  });

  it('migrates the book of an older runtime forward: its rows kept, their marks filled in', async () => {
    const file = join(dir, 'api.db');
    // as Kysely made it, before the marks
    await sql(
      file,
      'CREATE TABLE "restsmith_migrations" ("name" varchar(255) PRIMARY KEY, "timestamp" varchar(255) NOT NULL)',
    );
    await sql(file, 'CREATE TABLE "notes" ("id" TEXT PRIMARY KEY)');
    await sql(file, `INSERT INTO "restsmith_migrations" VALUES ('0001-initial', '2024-01-01T00:00:00.000Z')`);
    expect(await migrateCounting(file)).toEqual({ applied: ['0002-add-notes-body'], kyselyAsked: 1 });
    expect(await sql(file, 'SELECT "name", "timestamp", "additive" FROM "restsmith_migrations" ORDER BY 1')).toEqual([
      { name: '0001-initial', timestamp: '2024-01-01T00:00:00.000Z', additive: 0 },
      { name: '0002-add-notes-body', timestamp: expect.any(String), additive: 1 },
    ]);
  });

  it('fills in the marks of a book that is up to date, once', async () => {
    const file = join(dir, 'api.db');
    await migrateCounting(file);
    await sql(file, 'UPDATE "restsmith_migrations" SET "additive" = NULL');
    expect(await migrateCounting(file)).toEqual({ applied: [], kyselyAsked: 1 });
    expect((await book(file)).map((row) => row.additive)).toEqual([0, 1]);
    expect(await migrateCounting(file)).toEqual({ applied: [], kyselyAsked: 0 });
  });

  it('applies a migration missing from the book again (which fails here: the column is there)', async () => {
    const file = join(dir, 'api.db');
    await migrateCounting(file);
    await sql(file, `DELETE FROM "restsmith_migrations" WHERE "name" = '0002-add-notes-body'`);
    const again = await migrateCounting(file);
    expect(again.kyselyAsked).toBe(1);
    expect(String(again.applied)).toMatch(/migration 0002-add-notes-body failed.*duplicate column name: body/);
  });
});

describe('a database a newer build migrated', () => {
  const newer = async (file: string, name: string, additive: number | null): Promise<void> => {
    await migrateCounting(file);
    await sql(
      file,
      `INSERT INTO "restsmith_migrations" VALUES ('${name}', 'x', ${additive === null ? 'NULL' : additive})`,
    );
  };

  it('is run on as it is when every migration this build lacks is additive', async () => {
    const file = join(dir, 'api.db');
    await newer(file, '0003-add-notes-stars', 1);
    expect(await migrateCounting(file)).toEqual({ applied: [], kyselyAsked: 0 });
    expect(await migrateCounting(file, 'apply')).toEqual({ applied: [], kyselyAsked: 0 });
  });

  it.each([
    ['not additive', 0],
    ['not marked', null],
  ])('is refused, naming it, when one it lacks is %s', async (_, mark) => {
    const file = join(dir, 'api.db');
    await newer(file, '0003-rename-notes-body', mark);
    vi.stubEnv('MIGRATE_ON_START', 'false');
    const refused = await migrateCounting(file);
    expect(refused.kyselyAsked).toBe(0);
    expect(String(refused.applied)).toMatch(
      /^MigrationError: the database was migrated by a build this one is older than, with a migration that is not additive: 0003-rename-notes-body; this build cannot run on it/,
    );
  });

  it('is refused when this build has a migration pending under ones it lacks', async () => {
    const file = join(dir, 'api.db');
    await newer(file, '0003-add-notes-stars', 1);
    await sql(file, `DELETE FROM "restsmith_migrations" WHERE "name" = '0002-add-notes-body'`);
    expect(String((await migrateCounting(file)).applied)).toMatch(
      /this build's migrations 0002-add-notes-body are not applied, but the database holds migrations it does not have \(0003-add-notes-stars\)/,
    );
  });
});

describe('MIGRATE_ON_START=false', () => {
  it('applies nothing at start, and says what is pending; `apply` applies it', async () => {
    const file = join(dir, 'api.db');
    vi.stubEnv('MIGRATE_ON_START', 'false');
    expect(await migrateCounting(file)).toEqual({ applied: [], kyselyAsked: 0 });
    const db = openSqlite(file);
    try {
      expect((await readStanding(db)).pending).toEqual(['0001-initial', '0002-add-notes-body']);
      expect(await pendingMigrations(db)).toEqual(['0001-initial', '0002-add-notes-body']);
    } finally {
      await db.close();
    }
    expect(await migrateCounting(file, 'apply')).toEqual({
      applied: ['0001-initial', '0002-add-notes-body'],
      kyselyAsked: 1,
    });
  });

  it('is refused when it is neither true nor false', async () => {
    vi.stubEnv('MIGRATE_ON_START', 'no');
    expect(String((await migrateCounting(join(dir, 'api.db'))).applied)).toBe(
      'ConfigError: MIGRATE_ON_START must be true or false, not "no"',
    );
  });
});

describe('pendingMigrations', () => {
  it('reads the book at most once a second while some are pending, and never again once none are', async () => {
    const file = join(dir, 'api.db');
    const db = openSqlite(file);
    let reads = 0;
    const counting: Database = {
      ...db,
      prepareText: (text, options) => {
        if (text.includes('restsmith_migrations')) reads += 1;
        return db.prepareText(text, options);
      },
    };
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      expect(await pendingMigrations(counting)).toHaveLength(2);
      expect(await pendingMigrations(counting)).toHaveLength(2);
      expect(reads).toBe(1);
      await migrate(db, 'apply');
      vi.setSystemTime(Date.now() + 1001);
      expect(await pendingMigrations(counting)).toEqual([]);
      vi.setSystemTime(Date.now() + 5000);
      expect(await pendingMigrations(counting)).toEqual([]);
      expect(reads).toBe(2);
    } finally {
      vi.useRealTimers();
      await db.close();
    }
  });
});
