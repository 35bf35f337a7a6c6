import { describe, expect, it } from 'vitest';
import { diff } from '../../../src/migrate/diff.js';
import { postgresMigration } from '../../../src/migrate/postgres.js';
import type { ColumnSnapshot, Snapshot } from '../../../src/migrate/snapshot.js';

const column = (name: string, extra: Partial<ColumnSnapshot> = {}): ColumnSnapshot => ({
  name,
  field: name,
  type: 'string',
  notNull: false,
  unique: false,
  index: false,
  ...extra,
});
const notes = (...columns: ColumnSnapshot[]): Snapshot => ({
  tables: [
    { name: 'users', resource: 'users', id: 'uuid', columns: [] },
    { name: 'notes', resource: 'notes', id: 'uuid', columns },
  ],
});
const migrate = (before: Snapshot, after: Snapshot, renames: [string, string][] = []): string[] =>
  postgresMigration(diff(before, after, new Map([['notes', new Map(renames)]])));

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
      ['DELETE FROM "notes"', 'ALTER TABLE "notes" ADD COLUMN "title" TEXT COLLATE "C" NOT NULL'],
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
        `UPDATE "notes" SET "title" = 'untitled' WHERE "title" IS NULL`,
        'ALTER TABLE "notes" ALTER COLUMN "title" SET NOT NULL',
      ],
    ],
    [
      'narrows text to integer: values that do not convert become NULL, as SQLite would lose them',
      notes(column('code')),
      notes(column('code', { type: 'integer' })),
      [],
      [
        expect.stringContaining('CREATE FUNCTION pg_temp.restsmith_try_cast'),
        'ALTER TABLE "notes" ALTER COLUMN "code" TYPE BIGINT USING pg_temp.restsmith_try_cast("code"::text, NULL::BIGINT)',
      ] as unknown as string[],
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

  it('creates tables referenced first and drops them referencing first', () => {
    const posts = {
      name: 'posts',
      resource: 'posts',
      id: 'uuid' as const,
      columns: [column('userId', { type: 'ref', ref: { table: 'users', idKind: 'uuid', onDelete: 'restrict' } })],
    };
    const users = { name: 'users', resource: 'users', id: 'uuid' as const, columns: [] };
    const created = postgresMigration(diff({ tables: [] }, { tables: [posts, users] }, new Map()));
    expect(created.map((s) => s.split(' (')[0])).toEqual(['CREATE TABLE "users"', 'CREATE TABLE "posts"']);
    const dropped = postgresMigration(diff({ tables: [posts, users] }, { tables: [] }, new Map()));
    expect(dropped).toEqual(['DROP TABLE "posts"', 'DROP TABLE "users"']);
  });
});
