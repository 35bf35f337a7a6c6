import Sqlite from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SqlValue } from '../../runtime/src/db/database.js';
import {
  filterParams,
  listSql,
  servedByTrigram,
  shapeKey,
  type ListColumn,
  type ListShape,
} from '../../runtime/src/db/list-sql.js';
import { diff } from '../../src/migrate/diff.js';
import { sqliteMigration } from '../../src/migrate/sqlite.js';
import { createSchema } from '../../src/schema/ddl.js';
import { sqlite } from '../../src/schema/dialect.js';
import { trigramKeysTable, trigramTable } from '../../src/schema/trigram.js';
import type { IdKind } from '../../src/model.js';
import type { Snapshot } from '../../src/schema/snapshot.js';
import { column } from '../unit/migrate/snapshots.js';
import { NEEDLES, TEXTS } from './trigram-strings.js';

/** `contains` on a column with `index: trigram` (SQLite: an FTS5 trigram table kept by triggers). */
const id: ListColumn = { column: 'id', kind: 'integer', notNull: true };
const plain: ListColumn = { column: 'title', kind: 'text' };

const posts = (idKind: IdKind, trigram: boolean, extra: Parameters<typeof column>[1] = {}): Snapshot => ({
  tables: [
    {
      name: 'posts',
      resource: 'posts',
      id: idKind,
      columns: [column('title', { ...(trigram && { trigram: true }), ...extra }), column('body')],
      indexOrder: 'id',
    },
  ],
});

/** The trigram index of a column of posts, as the generated ListSpec names it. */
const indexOf = (idKind: IdKind, name: string): ListColumn['trigram'] => ({
  table: trigramTable('posts', name),
  ...(idKind !== 'integer' && { keys: trigramKeysTable('posts', name) }),
});

const shapeOf = (title: ListColumn, trigram: boolean): ListShape => ({
  filters: [{ column: title, op: 'contains', ...(trigram && { trigram: true as const }) }],
  sort: [{ column: id, descending: false }],
});

/** The ids a contains lists, in id order: through the index when the column has one and the value is long enough. */
function contains(db: Sqlite.Database, title: ListColumn, value: string): SqlValue[] {
  const shape = shapeOf(title, servedByTrigram(title, 'contains', value));
  const params = [...filterParams(shape.filters[0]!, [value], 'sqlite'), 1_000_000];
  return db
    .prepare(listSql('posts', '"id"', shape, 'sqlite'))
    .all(...params)
    .map((row) => (row as { id: SqlValue }).id);
}

function database(idKind: IdKind, trigram: boolean): Sqlite.Database {
  const db = new Sqlite(':memory:');
  for (const statement of createSchema(posts(idKind, trigram), sqlite)) db.exec(statement);
  return db;
}

function insert(db: Sqlite.Database, idKind: IdKind, texts: readonly (string | null)[], from = 0): void {
  const add = db.prepare('INSERT INTO "posts" ("id", "title", "created_at", "updated_at") VALUES (?, ?, \'t\', \'t\')');
  texts.forEach((text, i) =>
    add.run(idKind === 'integer' ? from + i + 1 : `id-${String(from + i).padStart(5, '0')}`, text),
  );
}

describe('which contains a trigram index serves', () => {
  const indexed: ListColumn = { ...plain, trigram: indexOf('integer', 'title') };
  it.each<[string, ListColumn, string, boolean]>([
    ['three letters', indexed, 'abc', true],
    ['two letters: no trigram', indexed, 'ab', false],
    ['three code points, one of them outside the BMP', indexed, 'a😀b', true],
    ['two code points in four UTF-16 units', indexed, '😀😀', false],
    ['a column without the index', plain, 'abcdef', false],
    ['a NUL between trigrams', indexed, 'abc\0def', true],
    ['a NUL in every three characters: no trigram an FTS5 query can hold', indexed, 'ab\0cd\0ef', false],
  ])('%s', (_case, column, value, want) => {
    expect(servedByTrigram(column, 'contains', value)).toBe(want);
  });

  it('makes an FTS5 query of a few trigrams of a long value, spread over it', () => {
    const value = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    const [query] = filterParams({ column: indexed, op: 'contains', trigram: true }, [value], 'sqlite');
    const terms = String(query).split(' AND ');
    expect(terms).toHaveLength(16);
    expect(terms[0]).toBe(`"${value.slice(0, 3)}"`);
    expect(terms[15]).toBe(`"${value.slice(4685, 4688)}"`);
  });

  it('tells a trigram contains and a short contains apart by shape', () => {
    expect(shapeKey(shapeOf(indexed, true))).not.toBe(shapeKey(shapeOf(indexed, false)));
  });

  it.each<[string, 'sqlite' | 'postgres', SqlValue[]]>([
    [
      'its trigrams in FTS5 strings, their quotes doubled',
      'sqlite',
      ['"a """ AND " ""h" AND """hi" AND "hi"""', 'a "hi"'],
    ],
    ['each trigram once', 'sqlite', ['"xxx" AND "xxy"', 'xxxxxxy']],
    ['no trigram with a NUL', 'sqlite', ['"abc" AND "def"', 'abc\0def']],
    ['a LIKE pattern, its wildcards and escape escaped', 'postgres', ['%50\\% a\\_b c\\\\d%', '50% a_b c\\d']],
    [
      'a LIKE pattern of the first 32 characters of a long value',
      'postgres',
      [`%${'😀'.repeat(31)}\\%%`, `${'😀'.repeat(31)}%${'x'.repeat(5000)}`],
    ],
  ])('the index query of a value: %s', (_case, dialect, want) => {
    const value = String(want[1]);
    expect(filterParams({ column: indexed, op: 'contains', trigram: true }, [value], dialect)).toEqual(want);
  });
});

describe('contains served by a trigram index on SQLite', () => {
  it.each<IdKind>(['integer', 'uuid'])(
    'lists the same rows as the exact condition alone, whatever the texts and the value (%s ids)',
    (idKind) => {
      const title: ListColumn = { ...plain, trigram: indexOf(idKind, 'title') };
      const withIndex = database(idKind, false);
      const without = database(idKind, false);
      // rows before the index is made (the migration fills it), then written after (the triggers keep it)
      const before = TEXTS.slice(0, 150);
      insert(withIndex, idKind, before);
      const migration = sqliteMigration(diff(posts(idKind, false), posts(idKind, true), new Map()));
      for (const statement of migration) withIndex.exec(statement);
      for (const db of [withIndex, without]) {
        if (db === without) insert(db, idKind, before);
        insert(db, idKind, TEXTS.slice(150), 150);
        db.exec(`UPDATE "posts" SET "title" = upper("title") WHERE rowid % 5 = 0`);
        db.exec(`UPDATE "posts" SET "title" = NULL WHERE rowid % 11 = 0`);
        db.exec(`UPDATE "posts" SET "title" = 'Ünïcode ÀBC "q" 50%_\\' WHERE rowid % 13 = 0`);
        db.exec(`UPDATE "posts" SET "body" = 'x' WHERE rowid % 3 = 0`);
        db.exec(`DELETE FROM "posts" WHERE rowid % 7 = 0`);
      }
      fc.assert(
        fc.property(NEEDLES, (needle) => {
          expect(contains(withIndex, title, needle)).toEqual(contains(without, plain, needle));
        }),
        { numRuns: 300 },
      );
      // the updated rows, found only if the triggers indexed their new text
      for (const needle of ['ÀBC', 'NïCODE', '50%_', '"q" 5']) {
        const want = contains(without, plain, needle);
        expect(want.length).toBeGreaterThan(10);
        expect(contains(withIndex, title, needle)).toEqual(want);
      }
      // what FTS5 folds and the exact condition does not (a letter outside ASCII in another case): not listed
      for (const needle of ['àbc', 'nÏcode']) expect(contains(withIndex, title, needle)).toEqual([]);
      // a NUL, which an FTS5 query cannot hold, in the value (and in a text)
      for (const db of [withIndex, without])
        db.exec(`UPDATE "posts" SET "title" = 'abc' || char(0) || 'def' WHERE rowid = 2`);
      for (const needle of ['abc\0def', 'bc\0de', 'abc\0', '\0\0\0', 'c\0d'])
        expect(contains(withIndex, title, needle)).toEqual(contains(without, plain, needle));
    },
  );

  it.each<[string, IdKind, boolean, RegExp]>([
    // a page by id is read from the FTS5 table in rowid order, stopping at its limit (no sort of every match)
    ['a first page, integer ids', 'integer', false, /^SCAN restsmith_fts VIRTUAL TABLE INDEX \d+:M1$/m],
    ['a next page, integer ids', 'integer', true, /^SCAN restsmith_fts VIRTUAL TABLE INDEX \d+:M1>$/m],
    // through the keys of text ids: the matches, then their records by id
    ['a first page, uuid ids', 'uuid', false, /SCAN posts_title_trgm VIRTUAL TABLE INDEX \d+:M1$/m],
  ])('reads the FTS table, not the whole table: %s', (_case, idKind, next, want) => {
    const db = database(idKind, true);
    const title: ListColumn = { ...plain, trigram: indexOf(idKind, 'title') };
    const shape = { ...shapeOf(title, true), ...(next && { afterNulls: [false] }) };
    const params = ['"abc"', 'abc', ...(next ? [idKind === 'integer' ? 5 : 'id-5'] : []), 21];
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${listSql('posts', '"id"', shape, 'sqlite')}`)
      .all(...params)
      .map((row) => (row as { detail: string }).detail)
      .join('\n');
    expect(plan).toMatch(want);
    expect(plan).not.toMatch(/^SCAN posts\b/m);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it('pages through the matches by id in either direction, as without the index', () => {
    const db = database('integer', false);
    insert(db, 'integer', TEXTS);
    for (const statement of sqliteMigration(diff(posts('integer', false), posts('integer', true), new Map())))
      db.exec(statement);
    const title: ListColumn = { ...plain, trigram: indexOf('integer', 'title') };
    const pages = (column: ListColumn, value: string, descending: boolean): SqlValue[] => {
      const trigram = servedByTrigram(column, 'contains', value);
      const seen: SqlValue[] = [];
      for (let n = 0; n < 1000; n++) {
        const last = seen[seen.length - 1];
        const shape: ListShape = {
          filters: [{ column, op: 'contains', ...(trigram && { trigram: true as const }) }],
          sort: [{ column: id, descending }],
          ...(last !== undefined && { afterNulls: [false] }),
        };
        const params = [
          ...filterParams(shape.filters[0]!, [value], 'sqlite'),
          ...(last === undefined ? [] : [last]),
          4,
        ];
        const page = db
          .prepare(listSql('posts', '"id"', shape, 'sqlite'))
          .all(...params)
          .map((row) => (row as { id: SqlValue }).id);
        seen.push(...page);
        if (page.length < 4) return seen;
      }
      throw new Error('more pages than records');
    };
    fc.assert(
      fc.property(NEEDLES, fc.boolean(), (needle, descending) => {
        expect(pages(title, needle, descending)).toEqual(pages(plain, needle, descending));
      }),
      { numRuns: 100 },
    );
  });

  it('names the columns of the listed table when it joins the FTS5 table (one may be called rank or value)', () => {
    const schema: Snapshot = {
      tables: [
        {
          ...posts('integer', true).tables[0]!,
          columns: [column('title', { trigram: true }), column('rank', { type: 'integer' }), column('value')],
        },
      ],
    };
    const db = new Sqlite(':memory:');
    for (const statement of createSchema(schema, sqlite)) db.exec(statement);
    db.exec(`INSERT INTO "posts" VALUES (1, 'abcd', 2, 'x', 't', 't', 1), (2, 'xabc', 1, 'x', 't', 't', 1)`);
    const title: ListColumn = { ...plain, trigram: indexOf('integer', 'title') };
    const rank: ListColumn = { column: 'rank', kind: 'integer' };
    const shape: ListShape = {
      owner: { columns: ['value'], kind: 'text' },
      filters: [
        { column: rank, op: 'gte' },
        { column: title, op: 'contains', trigram: true },
      ],
      sort: [{ column: id, descending: true }],
    };
    const sql = listSql('posts', '"id", "rank", "value"', shape, 'sqlite');
    expect(db.prepare(sql).all('x', 1, '"ABC"', 'ABC', 21)).toEqual([
      { id: 2, rank: 1, value: 'x' },
      { id: 1, rank: 2, value: 'x' },
    ]);
  });

  it('keeps every row when a field gains and loses index: trigram, and when its table is rebuilt', () => {
    const db = database('uuid', false);
    insert(db, 'uuid', TEXTS);
    const rows = (): unknown[] => db.prepare('SELECT * FROM "posts" ORDER BY "id"').all();
    const all = rows();
    const title: ListColumn = { ...plain, trigram: indexOf('uuid', 'title') };
    const steps: [Snapshot, Snapshot][] = [
      [posts('uuid', false), posts('uuid', true)],
      // NOT NULL with a default: SQLite rebuilds the table (and its FTS table, from the copied rows)
      [posts('uuid', true), posts('uuid', true, { notNull: true, default: '' })],
      [posts('uuid', true, { notNull: true, default: '' }), posts('uuid', true)],
    ];
    for (const [from, to] of steps) {
      for (const statement of sqliteMigration(diff(from, to, new Map()))) db.exec(statement);
      expect(rows()).toEqual(all);
      expect(contains(db, title, 'abc')).toEqual(contains(db, plain, 'abc'));
    }
    // a renamed field: its index is made again under the new name
    const renamed: Snapshot = {
      tables: [{ ...posts('uuid', true).tables[0]!, columns: [column('heading', { trigram: true }), column('body')] }],
    };
    const renames = new Map([['posts', new Map([['title', 'heading']])]]);
    for (const statement of sqliteMigration(diff(posts('uuid', true), renamed, renames))) db.exec(statement);
    const heading: ListColumn = { column: 'heading', kind: 'text', trigram: indexOf('uuid', 'heading') };
    expect(contains(db, heading, 'abc')).toEqual(contains(db, { column: 'heading', kind: 'text' }, 'abc'));
    const back = new Map([['posts', new Map([['heading', 'title']])]]);
    for (const statement of sqliteMigration(diff(renamed, posts('uuid', true), back))) db.exec(statement);
    expect(rows()).toEqual(all);
    for (const statement of sqliteMigration(diff(posts('uuid', true), posts('uuid', false), new Map())))
      db.exec(statement);
    expect(rows()).toEqual(all);
    const left = (): unknown[] => db.prepare(`SELECT name FROM sqlite_schema WHERE name LIKE '%trgm%'`).all();
    expect(left()).toEqual([]);
    // a resource dropped with its index: the FTS5 table and the keys go too
    for (const statement of sqliteMigration(diff(posts('uuid', false), posts('uuid', true), new Map())))
      db.exec(statement);
    expect(left().length).toBeGreaterThan(0);
    for (const statement of sqliteMigration(diff(posts('uuid', true), { tables: [] }, new Map()))) db.exec(statement);
    expect(left()).toEqual([]);
  });
});
