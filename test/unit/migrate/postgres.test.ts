import { describe, expect, it } from 'vitest';
import { diff } from '../../../src/migrate/diff.js';
import { postgresMigration } from '../../../src/migrate/postgres.js';
import type { Snapshot } from '../../../src/schema/snapshot.js';
import { column, notes } from './snapshots.js';

const migrate = (before: Snapshot, after: Snapshot, renames: [string, string][] = []): string[] =>
  postgresMigration(diff(before, after, new Map([['notes', new Map(renames)]])), after);

describe('PostgreSQL migrations, from the same diff as SQLite', () => {
  it.each<[string, Snapshot, Snapshot, [string, string][], string[]]>([
    [
      'adds a column with its default',
      notes(),
      notes(column('stars', { type: 'integer', notNull: true, default: 0 })),
      [],
      ['ALTER TABLE "notes" ADD COLUMN "stars" BIGINT NOT NULL DEFAULT 0'],
    ],
    [
      'adds a required column without a default by deleting the rows it cannot hold (a stated data loss)',
      notes(),
      notes(column('title', { notNull: true })),
      [],
      ['DELETE FROM "notes" WHERE TRUE', 'ALTER TABLE "notes" ADD COLUMN "title" TEXT COLLATE "C" NOT NULL'],
    ],
    [
      'renames a column, keeping its data',
      notes(column('body')),
      notes(column('content')),
      [['body', 'content']],
      ['ALTER TABLE "notes" RENAME COLUMN "body" TO "content"'],
    ],
    [
      'widens integer to a nullable number with a new default, in place',
      notes(column('stars', { type: 'integer', notNull: true, default: 0 })),
      notes(column('stars', { type: 'number', default: 1.5 })),
      [],
      [
        'ALTER TABLE "notes" ALTER COLUMN "stars" DROP NOT NULL',
        'ALTER TABLE "notes" ALTER COLUMN "stars" DROP DEFAULT',
        'ALTER TABLE "notes" ALTER COLUMN "stars" TYPE DOUBLE PRECISION USING "stars"::DOUBLE PRECISION',
        'ALTER TABLE "notes" ALTER COLUMN "stars" SET DEFAULT 1.5',
      ],
    ],
    [
      'makes a field required with a default: NULLs take it',
      notes(column('title')),
      notes(column('title', { notNull: true, default: 'untitled' })),
      [],
      [
        `ALTER TABLE "notes" ALTER COLUMN "title" SET DEFAULT 'untitled'`,
        `UPDATE "notes" SET "title" = 'untitled', "version" = "version" + 1 WHERE "title" IS NULL`,
        'ALTER TABLE "notes" ALTER COLUMN "title" SET NOT NULL',
      ],
    ],
    [
      'narrows text to integer: values that do not convert become 0, as the CAST of SQLite makes them',
      notes(column('code')),
      notes(column('code', { type: 'integer' })),
      [],
      [
        expect.stringContaining('CREATE OR REPLACE FUNCTION pg_temp.restsmith_try_cast'),
        // its rows are other values now (numbers, not text): new versions, new ETags
        'UPDATE "notes" SET "version" = "version" + 1 WHERE "code" IS NOT NULL',
        'ALTER TABLE "notes" ALTER COLUMN "code" TYPE BIGINT USING ' +
          'CASE WHEN "code" IS NULL THEN NULL ELSE coalesce(pg_temp.restsmith_try_cast("code"::text, NULL::BIGINT), 0) END',
      ] as unknown as string[],
    ],
    [
      'drops a value of an enum: its rows take the default, with new versions',
      notes(column('state', { type: 'enum', values: ['a', 'b'], notNull: true, default: 'a' })),
      notes(column('state', { type: 'enum', values: ['a'], notNull: true, default: 'a' })),
      [],
      // the default stays: it is neither dropped nor set again
      [`UPDATE "notes" SET "state" = 'a', "version" = "version" + 1 WHERE "state" NOT IN ('a')`],
    ],
    [
      'renames a column and converts it in one change (found by a reviewer: the conversion named the old column)',
      notes(column('code')),
      notes(column('num', { type: 'number' })),
      [['code', 'num']],
      [
        expect.stringContaining('CREATE OR REPLACE FUNCTION pg_temp.restsmith_try_cast'),
        'ALTER TABLE "notes" RENAME COLUMN "code" TO "num"',
        'UPDATE "notes" SET "version" = "version" + 1 WHERE "num" IS NOT NULL',
        'ALTER TABLE "notes" ALTER COLUMN "num" TYPE DOUBLE PRECISION USING ' +
          'CASE WHEN "num" IS NULL THEN NULL ELSE coalesce(pg_temp.restsmith_try_cast("num"::text, NULL::DOUBLE PRECISION), 0) END',
      ] as unknown as string[],
    ],
    [
      'narrows number to integer by truncating, as SQLite does',
      notes(column('stars', { type: 'number', notNull: true })),
      notes(column('stars', { type: 'integer', notNull: true })),
      [],
      [
        'ALTER TABLE "notes" ALTER COLUMN "stars" DROP NOT NULL',
        'UPDATE "notes" SET "version" = "version" + 1 WHERE "stars" IS NOT NULL',
        'ALTER TABLE "notes" ALTER COLUMN "stars" TYPE BIGINT USING trunc("stars")::BIGINT',
        'DELETE FROM "notes" WHERE "stars" IS NULL',
        'ALTER TABLE "notes" ALTER COLUMN "stars" SET NOT NULL',
      ],
    ],
    [
      'adds a unique index and a reference with a named foreign key',
      notes(column('slug'), column('userId')),
      notes(
        column('slug', { unique: true }),
        column('userId', { type: 'ref', index: true, ref: { table: 'users', idKind: 'uuid', onDelete: 'cascade' } }),
      ),
      [],
      [
        'ALTER TABLE "notes" ADD CONSTRAINT "notes_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE CASCADE',
        'CREATE UNIQUE INDEX "notes_slug_key" ON "notes" ("slug")',
        'CREATE INDEX "notes_userId_idx" ON "notes" ("userId")',
      ],
    ],
  ])('%s', (_, before, after, renames, want) => {
    expect(migrate(before, after, renames)).toEqual(want);
  });

  it('refuses to delete rows that another table refers to, where PostgreSQL would cascade', () => {
    const referring = {
      name: 'posts',
      resource: 'posts',
      id: 'uuid' as const,
      columns: [column('noteId', { type: 'ref', ref: { table: 'notes', idKind: 'uuid', onDelete: 'cascade' } })],
    };
    const before = { tables: [...notes().tables, referring] };
    const after = { tables: [...notes(column('title', { notNull: true })).tables, referring] };
    expect(postgresMigration(diff(before, after, new Map()), after)).toEqual([
      `DO $$ BEGIN IF EXISTS (SELECT 1 FROM "posts" WHERE "noteId" IN (SELECT "id" FROM "notes" WHERE TRUE)) THEN ` +
        `RAISE EXCEPTION 'it would delete notes records that posts.noteId refers to'; END IF; END $$`,
      'DELETE FROM "notes" WHERE TRUE',
      'ALTER TABLE "notes" ADD COLUMN "title" TEXT COLLATE "C" NOT NULL',
    ]);
  });

  it('creates tables that refer to each other, then their foreign keys; drops them together', () => {
    const ref = (table: string) => ({
      type: 'ref' as const,
      ref: { table, idKind: 'uuid' as const, onDelete: 'setNull' as const },
    });
    const users = { name: 'users', resource: 'users', id: 'uuid' as const, columns: [column('teamId', ref('teams'))] };
    const teams = { name: 'teams', resource: 'teams', id: 'uuid' as const, columns: [column('leadId', ref('users'))] };
    const created = postgresMigration(diff({ tables: [] }, { tables: [users, teams] }, new Map()), {
      tables: [users, teams],
    });
    expect(created.map((s) => s.split(' (')[0]?.split(' FOREIGN')[0])).toEqual([
      'CREATE TABLE "teams"',
      'CREATE TABLE "users"',
      'ALTER TABLE "teams" ADD CONSTRAINT "teams_leadId_fkey"',
      'ALTER TABLE "users" ADD CONSTRAINT "users_teamId_fkey"',
    ]);
    expect(postgresMigration(diff({ tables: [users, teams] }, { tables: [] }, new Map()), { tables: [] })).toEqual([
      'DROP TABLE "users", "teams"',
    ]);
  });

  it('creates tables referenced first', () => {
    const posts = {
      name: 'posts',
      resource: 'posts',
      id: 'uuid' as const,
      columns: [column('userId', { type: 'ref', ref: { table: 'users', idKind: 'uuid', onDelete: 'restrict' } })],
    };
    const users = { name: 'users', resource: 'users', id: 'uuid' as const, columns: [] };
    const created = postgresMigration(diff({ tables: [] }, { tables: [posts, users] }, new Map()), {
      tables: [posts, users],
    });
    expect(created.map((s) => s.split(' (')[0])).toEqual([
      'CREATE TABLE "users"',
      'CREATE TABLE "posts"',
      'ALTER TABLE "posts" ADD CONSTRAINT "posts_userId_fkey" FOREIGN KEY',
    ]);
  });

  it('renames a table (renamedFrom): its own foreign keys and indexes follow, the refs to it are unchanged', () => {
    const ref = (table: string) => ({
      type: 'ref' as const,
      ref: { table, idKind: 'uuid' as const, onDelete: 'restrict' as const },
    });
    const snapshot = (name: string): Snapshot => ({
      tables: [
        { name: 'users', resource: 'users', id: 'uuid', columns: [] },
        { name, resource: name, id: 'uuid', columns: [column('userId', { ...ref('users'), index: true })] },
        { name: 'visits', resource: 'visits', id: 'uuid', columns: [column('noteId', { ...ref(name), index: true })] },
      ],
    });
    const after = snapshot('memos');
    expect(postgresMigration(diff(snapshot('notes'), after, new Map(), new Map([['notes', 'memos']])), after)).toEqual([
      'ALTER TABLE "notes" RENAME TO "memos"',
      'ALTER TABLE "memos" RENAME CONSTRAINT "notes_userId_fkey" TO "memos_userId_fkey"',
      'DROP INDEX IF EXISTS "notes_userId_idx"',
      'CREATE INDEX "memos_userId_idx" ON "memos" ("userId")',
    ]);
  });
});
