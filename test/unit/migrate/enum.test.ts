import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { diff } from '../../../src/migrate/diff.js';
import { postgresMigration } from '../../../src/migrate/postgres.js';
import { sqliteMigration } from '../../../src/migrate/sqlite.js';
import { createSchema } from '../../../src/schema/ddl.js';
import { sqlite } from '../../../src/schema/dialect.js';
import type { Snapshot } from '../../../src/schema/snapshot.js';
import { column, notes } from './snapshots.js';

/**
 * A column whose definition in CREATE TABLE stays the same (an enum's values: SQLite stores no CHECK of them, the
 * API's JSON Schema checks them) changes in place on SQLite: no rebuild, and nothing at all for an enum widened.
 */
const migrations = (before: Snapshot, after: Snapshot) => {
  const changes = diff(before, after, new Map());
  return { sqlite: sqliteMigration(changes), postgres: postgresMigration(changes, after) };
};

const state = (values: string[], extra: Parameters<typeof column>[1] = {}) =>
  notes(column('state', { type: 'enum', values, ...extra }));

const none = { sqlite: [], postgres: [] };

describe('an enum column changed: the statements on each database', () => {
  it.each<[string, Snapshot, Snapshot, { sqlite: string[]; postgres: string[] }]>([
    ['widened: nothing to do', state(['a', 'b']), state(['a', 'b', 'c']), { sqlite: [], postgres: [] }],
    [
      'widened, required with a default: nothing to do (the default is not set again)',
      state(['a', 'b'], { notNull: true, default: 'a' }),
      state(['c', 'a', 'b'], { notNull: true, default: 'a' }),
      none,
    ],
    [
      'a value removed: its rows take the default, with new versions, in place',
      state(['a', 'b'], { default: 'a' }),
      state(['a'], { default: 'a' }),
      {
        sqlite: [`UPDATE "notes" SET "state" = 'a', "version" = "version" + 1 WHERE "state" NOT IN ('a')`],
        postgres: [`UPDATE "notes" SET "state" = 'a', "version" = "version" + 1 WHERE "state" NOT IN ('a')`],
      },
    ],
    [
      'a string made an enum: the values that are not one take NULL, in place',
      notes(column('state')),
      state(['a', 'b']),
      {
        sqlite: [`UPDATE "notes" SET "state" = NULL, "version" = "version" + 1 WHERE "state" NOT IN ('a', 'b')`],
        postgres: [`UPDATE "notes" SET "state" = NULL, "version" = "version" + 1 WHERE "state" NOT IN ('a', 'b')`],
      },
    ],
    ['an enum made a string: nothing to do', state(['a', 'b']), notes(column('state')), { sqlite: [], postgres: [] }],
    // the same holds for any column whose definition stays: its indexes are statements of their own
    ['a string made text: nothing to do', notes(column('body')), notes(column('body', { type: 'text' })), none],
    [
      'made unique: its index only',
      notes(column('code')),
      notes(column('code', { unique: true })),
      {
        sqlite: ['CREATE UNIQUE INDEX "notes_code_key" ON "notes" ("code")'],
        postgres: ['CREATE UNIQUE INDEX "notes_code_key" ON "notes" ("code")'],
      },
    ],
  ])('%s', (_case, before, after, want) => {
    expect(migrations(before, after)).toEqual(want);
  });

  it('rebuilds the SQLite table when the column definition changes too, copying the widened enum as it is', () => {
    const { sqlite: statements } = migrations(state(['a']), state(['a', 'b'], { default: 'b' }));
    expect(statements[0]).toMatch(/^CREATE TABLE "notes__rebuild"/);
    expect(statements[1]).toMatch(/^INSERT INTO "notes__rebuild" \(.*\) SELECT "id", "state", "created_at"/);
  });
});

describe('an enum column changed: the rows of a SQLite table', () => {
  /** `before`'s table with `rows` (state values), migrated to `after`: whether the table was made again, its rows. */
  const migrated = (before: Snapshot, after: Snapshot, rows: (string | null)[]) => {
    const db = new Database(':memory:');
    try {
      for (const statement of createSchema(before, sqlite)) db.exec(statement);
      const insert = db.prepare(
        `INSERT INTO notes (id, state, created_at, updated_at) VALUES (?, ?, '2024-01-01', '2024-01-01')`,
      );
      rows.forEach((value, i) => insert.run(`n${i}`, value));
      // a rebuilt table is another b-tree, at another root page; a rebuild's DDL reads as the old one did
      const table = () => db.prepare(`SELECT rootpage || sql FROM sqlite_master WHERE name = 'notes'`).pluck().get();
      const was = table();
      for (const statement of sqliteMigration(diff(before, after, new Map()))) db.exec(statement);
      return {
        rebuilt: table() !== was,
        rows: db.prepare('SELECT id, state, version FROM notes ORDER BY id').all(),
      };
    } finally {
      db.close();
    }
  };

  it('widened: every row as it was, the table untouched', () => {
    expect(migrated(state(['a', 'b']), state(['a', 'b', 'c']), ['a', 'b', null])).toEqual({
      rebuilt: false,
      rows: [
        { id: 'n0', state: 'a', version: 1 },
        { id: 'n1', state: 'b', version: 1 },
        { id: 'n2', state: null, version: 1 },
      ],
    });
  });

  it('a value removed: its rows take the default and a new version, NULL stays NULL', () => {
    expect(migrated(state(['a', 'b'], { default: 'a' }), state(['a'], { default: 'a' }), ['a', 'b', null])).toEqual({
      rebuilt: false,
      rows: [
        { id: 'n0', state: 'a', version: 1 },
        { id: 'n1', state: 'a', version: 2 },
        { id: 'n2', state: null, version: 1 },
      ],
    });
  });

  it('rebuilt for another change, a nullable enum with a default keeps its NULLs (they took the default)', () => {
    const before = notes(column('state', { type: 'enum', values: ['a', 'b'], default: 'a' }), column('body'));
    const after = notes(
      column('state', { type: 'enum', values: ['a'], default: 'a' }),
      column('body', { default: 'x' }),
    );
    expect(migrated(before, after, ['b', null])).toEqual({
      rebuilt: true,
      rows: [
        { id: 'n0', state: 'a', version: 2 },
        { id: 'n1', state: null, version: 1 },
      ],
    });
  });
});

describe('a column whose type changes but whose SQLite type stays (a reviewer)', () => {
  it.each([
    ['boolean', 'integer', 1],
    ['json', 'text', '"x"'],
  ] as const)('%s to %s: rebuilt, each value with a new version, as on PostgreSQL', (from, to, value) => {
    const before = notes(column('flag', { type: from }));
    const after = notes(column('flag', { type: to }));
    const db = new Database(':memory:');
    try {
      for (const statement of createSchema(before, sqlite)) db.exec(statement);
      db.prepare(
        `INSERT INTO notes (id, flag, created_at, updated_at) VALUES ('n0', ?, '2024-01-01', '2024-01-01'), ` +
          `('n1', NULL, '2024-01-01', '2024-01-01')`,
      ).run(value);
      for (const statement of sqliteMigration(diff(before, after, new Map()))) db.exec(statement);
      // the value reads as another JSON type: an ETag of before must no longer match
      expect(db.prepare('SELECT id, version FROM notes ORDER BY id').all()).toEqual([
        { id: 'n0', version: 2 },
        { id: 'n1', version: 1 },
      ]);
    } finally {
      db.close();
    }
  });
});
