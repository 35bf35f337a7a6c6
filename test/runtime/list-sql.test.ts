import Sqlite from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SqlValue } from '../../runtime/src/db/database.js';
import {
  keysetParams,
  listParams,
  listSql,
  shapeKey,
  type ListColumn,
  type ListShape,
  type OwnerColumns,
} from '../../runtime/src/db/list-sql.js';

const title: ListColumn = { column: 'title', kind: 'text' };
const views: ListColumn = { column: 'views', kind: 'integer' };
const id: ListColumn = { column: 'id', kind: 'integer' };
/** the primary key as the stores describe it: never NULL */
const key: ListColumn = { column: 'id', kind: 'integer', notNull: true };
const owner: OwnerColumns = { columns: ['author_id'], kind: 'text' };
/** a unique email: compared as its unique index on lower(email) compares */
const email: ListColumn = { column: 'email', kind: 'text', folded: true };

/** The SQL of a listing is a function of its shape alone: given shapes, want statements, in both dialects. */
describe('the SQL of a listing shape', () => {
  it.each<[string, ListShape, string, string]>([
    [
      'a first page by id',
      { filters: [], sort: [{ column: id, descending: false }] },
      'SELECT * FROM "posts" ORDER BY "id" ASC NULLS FIRST LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" ORDER BY "id" ASC NULLS FIRST LIMIT $1::bigint',
    ],
    [
      "an owner's, filtered by views and a list of titles",
      {
        owner,
        filters: [
          { column: title, op: 'in' },
          { column: views, op: 'gte' },
        ],
        sort: [{ column: id, descending: false }],
      },
      'SELECT * FROM "posts" WHERE "author_id" = ? AND "title" IN (SELECT value FROM json_each(?)) AND "views" >= ? ' +
        'ORDER BY "id" ASC NULLS FIRST LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" WHERE "author_id" = $1::text AND "title" IN (SELECT value::text FROM ' +
        'jsonb_array_elements_text($2::text::jsonb) AS value) AND "views" >= $3::bigint ORDER BY "id" ASC NULLS FIRST LIMIT $4::bigint',
    ],
    [
      'the records of one of several owners, after a cursor: a UNION of one ordered, limited page per owner column',
      {
        owner: { columns: ['patient_id', 'doctor_id'], kind: 'integer' },
        filters: [],
        sort: [{ column: id, descending: false }],
        afterNulls: [false],
      },
      'SELECT * FROM (SELECT * FROM (SELECT * FROM "posts" WHERE "patient_id" = ? AND (("id" > ?)) ORDER BY "id" ASC ' +
        'NULLS FIRST LIMIT CAST(? AS INTEGER)) AS "owner_0" UNION SELECT * FROM (SELECT * FROM "posts" WHERE "doctor_id" = ? AND (("id" > ?)) ' +
        'ORDER BY "id" ASC NULLS FIRST LIMIT CAST(? AS INTEGER)) AS "owner_1") AS "owned" ORDER BY "id" ASC NULLS FIRST LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM (SELECT * FROM (SELECT * FROM "posts" WHERE "patient_id" = $1::bigint AND (("id" > $2::bigint)) ' +
        'ORDER BY "id" ASC NULLS FIRST LIMIT $3::bigint) AS "owner_0" UNION SELECT * FROM (SELECT * FROM "posts" WHERE ' +
        '"doctor_id" = $4::bigint AND (("id" > $5::bigint)) ORDER BY "id" ASC NULLS FIRST LIMIT $6::bigint) AS "owner_1") ' +
        'AS "owned" ORDER BY "id" ASC NULLS FIRST LIMIT $7::bigint',
    ],
    [
      'ne keeps NULLs; contains ignores ASCII case',
      {
        filters: [
          { column: title, op: 'contains' },
          { column: views, op: 'ne' },
        ],
        sort: [{ column: id, descending: false }],
      },
      'SELECT * FROM "posts" WHERE instr(lower("title"), lower(?)) > 0 AND ("views" <> ? OR "views" IS NULL) ' +
        'ORDER BY "id" ASC NULLS FIRST LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" WHERE strpos(lower("title"), lower($1::text COLLATE "C")) > 0 AND ("views" <> $2::bigint ' +
        'OR "views" IS NULL) ORDER BY "id" ASC NULLS FIRST LIMIT $3::bigint',
    ],
    [
      'through a many-to-many relation, each hop scoped to an owner: parameters from the innermost out',
      {
        filters: [
          {
            column: { column: 'name', kind: 'text' },
            op: 'eq',
            via: [
              { local: 'id', table: 'post_tags', remote: 'post_id', owner: { columns: ['added_by'], kind: 'text' } },
              { local: 'tag_id', table: 'tags', remote: 'id', owner: { columns: ['owner_id'], kind: 'integer' } },
            ],
          },
        ],
        sort: [{ column: key, descending: false }],
      },
      'SELECT * FROM "posts" WHERE "id" IN (SELECT "post_id" FROM "post_tags" WHERE "tag_id" IN (SELECT "id" FROM ' +
        '"tags" WHERE "name" = ? AND "owner_id" = ?) AND "added_by" = ?) ORDER BY "id" ASC LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" WHERE "id" IN (SELECT "post_id" FROM "post_tags" WHERE "tag_id" IN (SELECT "id" FROM ' +
        '"tags" WHERE "name" = $1::text AND "owner_id" = $2::bigint) AND "added_by" = $3::text) ORDER BY "id" ASC LIMIT $4::bigint',
    ],
    [
      'a next page by -views, after a NULL views',
      {
        filters: [],
        sort: [
          { column: views, descending: true },
          { column: id, descending: false },
        ],
        afterNulls: [true, false],
      },
      'SELECT * FROM "posts" WHERE ((FALSE) OR ("views" IS NULL AND "id" > ?)) ' +
        'ORDER BY "views" DESC NULLS LAST, "id" ASC NULLS FIRST LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" WHERE ((FALSE) OR ("views" IS NULL AND "id" > $1::bigint)) ' +
        'ORDER BY "views" DESC NULLS LAST, "id" ASC NULLS FIRST LIMIT $2::bigint',
    ],
    [
      'a first page by a column that is never NULL: no NULLS order, so that PostgreSQL walks its index',
      { filters: [], sort: [{ column: key, descending: false }] },
      'SELECT * FROM "posts" ORDER BY "id" ASC LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" ORDER BY "id" ASC LIMIT $1::bigint',
    ],
    [
      'a next page by -views, then by a column that is never NULL, descending',
      {
        filters: [],
        sort: [
          { column: views, descending: true },
          { column: key, descending: true },
        ],
        afterNulls: [false, false],
      },
      'SELECT * FROM "posts" WHERE ((("views" < ? OR "views" IS NULL)) OR ("views" = ? AND "id" < ?)) ' +
        'ORDER BY "views" DESC NULLS LAST, "id" DESC LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" WHERE ((("views" < $1::bigint OR "views" IS NULL)) OR ("views" = $2::bigint AND ' +
        '"id" < $3::bigint)) ORDER BY "views" DESC NULLS LAST, "id" DESC LIMIT $4::bigint',
    ],
    [
      'a unique email: eq, ne and in compare as its unique index does, lower() on both sides; gt as stored',
      {
        filters: [
          { column: email, op: 'eq' },
          { column: email, op: 'gt' },
          { column: email, op: 'in' },
          { column: email, op: 'ne' },
        ],
        sort: [{ column: key, descending: false }],
      },
      'SELECT * FROM "posts" WHERE lower("email") = lower(?) AND "email" > ? AND lower("email") IN (SELECT lower(value) ' +
        'FROM json_each(?)) AND (lower("email") <> lower(?) OR "email" IS NULL) ORDER BY "id" ASC LIMIT CAST(? AS INTEGER)',
      'SELECT * FROM "posts" WHERE lower("email") = lower($1::text COLLATE "C") AND "email" > $2::text AND ' +
        'lower("email") IN (SELECT lower(value COLLATE "C") FROM jsonb_array_elements_text($3::text::jsonb) AS value) ' +
        'AND (lower("email") <> lower($4::text COLLATE "C") OR "email" IS NULL) ORDER BY "id" ASC LIMIT $5::bigint',
    ],
  ])('%s', (_case, shape, sqlite, postgres) => {
    expect(listSql('posts', '*', shape, 'sqlite')).toBe(sqlite);
    expect(listSql('posts', '*', shape, 'postgres')).toBe(postgres);
  });

  it('tells shapes apart by key: filters, sort, owner and NULL cursor values', () => {
    const base: ListShape = { filters: [{ column: views, op: 'gt' }], sort: [{ column: id, descending: false }] };
    const keys = (
      [
        base,
        { ...base, owner },
        { ...base, owner: { ...owner, columns: ['author_id', 'editor_id'] } },
        { ...base, filters: [{ column: views, op: 'lt' }] },
        { ...base, sort: [{ column: id, descending: true }] },
        { ...base, afterNulls: [false] },
        { ...base, afterNulls: [true] },
      ] satisfies ListShape[]
    ).map(shapeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

/**
 * The ids a listing of `shape` reads on SQLite, following the cursor page after page (`owner`: the owner's value, for
 * a shape restricted to one), at most `pages` + 1 pages.
 */
function pageThrough(db: Sqlite.Database, shape: ListShape, owner: SqlValue | undefined, size: number, pages: number) {
  const read: number[] = [];
  let after: SqlValue[] | undefined;
  for (let page = 0; page <= pages; page += 1) {
    const paged: ListShape = { ...shape, ...(after !== undefined && { afterNulls: after.map((v) => v === null) }) };
    const rest = [...(after === undefined ? [] : keysetParams(after)), size];
    const params = listParams(shape.owner, owner ?? null, rest);
    const got = db.prepare(listSql('posts', '*', paged, 'sqlite')).all(...params) as Record<string, SqlValue>[];
    read.push(...got.map((r) => Number(r.id)));
    const last = got.at(-1);
    if (got.length < size || last === undefined) break;
    after = shape.sort.map((k) => last[k.column.column] ?? null);
  }
  return read;
}

/**
 * Keyset pages, run on SQLite: whatever the rows (NULLs and ties included) and the sort, following the cursor from
 * page to page reads every row exactly once, in the order one query sorting them all gives.
 */
describe('keyset paging', () => {
  it('reads every row once, in order, for any rows, sort and page size', () => {
    const db = new Sqlite(':memory:');
    db.exec('CREATE TABLE "posts" ("id" INTEGER PRIMARY KEY, "views" INTEGER, "title" TEXT)');
    const row = fc.record({
      views: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      title: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }),
    });
    const sortKey = fc.record({ column: fc.constantFrom(views, title), descending: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 25 }),
        fc.array(sortKey, { maxLength: 2 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        (rows, keys, size, keyNotNull, keyDescending) => {
          db.exec('DELETE FROM "posts"');
          const insert = db.prepare('INSERT INTO "posts" ("views", "title") VALUES (?, ?)');
          for (const r of rows) insert.run(r.views, r.title);
          const unique = keys.filter((k, i) => keys.findIndex((o) => o.column === k.column) === i);
          // ties broken by the id, described as nullable or (as the stores do) never NULL, either way round
          const sort = [...unique, { column: keyNotNull ? key : id, descending: keyNotNull && keyDescending }];
          const all = db.prepare(listSql('posts', '"id"', { filters: [], sort }, 'sqlite')).all(1000) as {
            id: number;
          }[];
          const read = pageThrough(db, { filters: [], sort }, undefined, size, rows.length);
          expect(read).toEqual(all.map((r) => r.id));
        },
      ),
      { seed: 20261123, numRuns: 200 },
    );
    db.close();
  });

  it('reads the rows of one of several owners once each, in order, whichever columns hold the owner', () => {
    const db = new Sqlite(':memory:');
    db.exec('CREATE TABLE "posts" ("id" INTEGER PRIMARY KEY, "views" INTEGER, "a" INTEGER, "b" INTEGER)');
    const owner: OwnerColumns = { columns: ['a', 'b'], kind: 'integer' };
    const row = fc.record({
      views: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      a: fc.integer({ min: 0, max: 2 }),
      b: fc.integer({ min: 0, max: 2 }),
    });
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 4 }),
        (rows, descending, size) => {
          db.exec('DELETE FROM "posts"');
          const insert = db.prepare('INSERT INTO "posts" ("views", "a", "b") VALUES (?, ?, ?)');
          for (const r of rows) insert.run(r.views, r.a, r.b);
          const sort = [
            { column: views, descending },
            { column: key, descending: false },
          ];
          const all = db
            .prepare(
              listSql('posts', '"id"', { filters: [], sort }, 'sqlite').replace(
                ' ORDER',
                ' WHERE "a" = 1 OR "b" = 1 ORDER',
              ),
            )
            .all(1000) as { id: number }[];
          const read = pageThrough(db, { owner, filters: [], sort }, 1, size, rows.length);
          expect(read).toEqual(all.map((r) => r.id));
        },
      ),
      { seed: 20261125, numRuns: 200 },
    );
    db.close();
  });
});
