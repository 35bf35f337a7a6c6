import type { Cost } from '../../runtime/src/db/cost.js';
import type { Database } from '../../runtime/src/db/database.js';
import { costFacts, listSql, type ListColumn, type ListShape } from '../../runtime/src/db/list-sql.js';
import { postgres, sqlite } from '../../src/schema/dialect.js';
import { trigramKeysTable, trigramStatements, trigramTable } from '../../src/schema/trigram.js';

/**
 * Listing shapes and the cost class each must get (see runtime/src/db/cost.ts), the same on SQLite and PostgreSQL:
 * the table of posts below has indexes on id (its key), (author_id, id), (editor_id, id) and (created_at, id), a
 * trigram index on title (`index: trigram`, as the generated migrations make it); body and views have none.
 */
export const SCHEMA = (dialect: 'sqlite' | 'postgres'): string[] => [
  `CREATE TABLE "users" ("id" text PRIMARY KEY, "country" text)`,
  `CREATE TABLE "posts" ("id" text PRIMARY KEY, "title" text NOT NULL, "body" text, "views" ${dialect === 'sqlite' ? 'integer' : 'bigint'},
     "author_id" text REFERENCES "users" ("id"), "editor_id" text, "created_at" ${dialect === 'sqlite' ? 'text' : 'timestamptz'} NOT NULL)`,
  `CREATE INDEX "posts_author_id_idx" ON "posts" ("author_id", "id")`,
  `CREATE INDEX "posts_created_at_idx" ON "posts" ("created_at", "id")`,
  `CREATE INDEX "posts_editor_id_idx" ON "posts" ("editor_id", "id")`,
  ...trigramStatements('posts', 'title', 'uuid', dialect === 'sqlite' ? sqlite : postgres),
];

const id: ListColumn = { column: 'id', kind: 'text', notNull: true };
const title: ListColumn = { column: 'title', kind: 'text', notNull: true };
const body: ListColumn = { column: 'body', kind: 'text' };
const titleTrigram: ListColumn = {
  ...title,
  trigram: { table: trigramTable('posts', 'title'), keys: trigramKeysTable('posts', 'title') },
};
const views: ListColumn = { column: 'views', kind: 'integer' };
const author: ListColumn = { column: 'author_id', kind: 'text' };
const created: ListColumn = { column: 'created_at', kind: 'datetime', notNull: true };
const country: ListColumn = { column: 'country', kind: 'text' };
const byId = { column: id, descending: false };
const toUsers = [{ local: 'author_id', table: 'users', remote: 'id' }];

export const SHAPES: [string, ListShape, Cost][] = [
  ['the first page by id', { filters: [], sort: [byId] }, 'cheap'],
  ['a next page by id', { filters: [], sort: [byId], afterNulls: [false] }, 'cheap'],
  ['the first page by -id', { filters: [], sort: [{ column: id, descending: true }] }, 'cheap'],
  ['by createdAt (indexed)', { filters: [], sort: [{ column: created, descending: false }, byId] }, 'cheap'],
  // the keyset of two keys is an OR neither database seeks to: the index is walked from its start, a residual filter
  // skipping the records before the cursor (a deep page reads them all)
  [
    'a next page by createdAt (indexed)',
    { filters: [], sort: [{ column: created, descending: false }, byId], afterNulls: [false, false] },
    'scans',
  ],
  // the index walks backwards as (created_at DESC, id DESC): the ties in id order are sorted apart, and a million
  // records of one instant would be sorted whole
  [
    'by -createdAt (indexed, ties by id)',
    { filters: [], sort: [{ column: created, descending: true }, byId] },
    'scans',
  ],
  ['one author (indexed), by id', { filters: [{ column: author, op: 'eq' }], sort: [byId] }, 'cheap'],
  [
    'one owner (indexed), by id',
    { owner: { columns: ['author_id'], kind: 'text' }, filters: [], sort: [byId] },
    'cheap',
  ],
  // one page per owner column, each from its index, merged: a sort of twice the page, not of the table
  [
    'two owners (indexed), by id',
    { owner: { columns: ['author_id', 'editor_id'], kind: 'text' }, filters: [], sort: [byId] },
    'cheap',
  ],
  ['body contains (unindexed)', { filters: [{ column: body, op: 'contains' }], sort: [byId] }, 'scans'],
  // the index narrows the rows to those holding every trigram of the value, nearly always few; but a value each of
  // whose trigrams most records hold still reads many, and the matches are sorted: it runs with the scans (its cost
  // is lower, not bounded by the page)
  [
    'title contains (trigram index)',
    { filters: [{ column: titleTrigram, op: 'contains', trigram: true }], sort: [byId] },
    'scans',
  ],
  ['title eq (unindexed)', { filters: [{ column: title, op: 'eq' }], sort: [byId] }, 'scans'],
  ['views gte (unindexed)', { filters: [{ column: views, op: 'gte' }], sort: [byId] }, 'scans'],
  ['sort by -views (unindexed)', { filters: [], sort: [{ column: views, descending: true }, byId] }, 'scans'],
  ['sort by title (unindexed)', { filters: [], sort: [{ column: title, descending: false }, byId] }, 'scans'],
  [
    'one author, body contains',
    {
      filters: [
        { column: author, op: 'eq' },
        { column: body, op: 'contains' },
      ],
      sort: [byId],
    },
    'scans',
  ],
  [
    'author.country eq (unindexed, through a relation)',
    { filters: [{ column: country, op: 'eq', via: toUsers }], sort: [byId] },
    'scans',
  ],
  ['views ne (unindexed)', { filters: [{ column: views, op: 'ne' }], sort: [byId] }, 'scans'],
];

/** Each shape's class as `db` judges it, from its own plan. */
export async function classify(db: Database): Promise<[string, Cost][]> {
  const judged: [string, Cost][] = [];
  for (const [name, shape] of SHAPES) {
    const sql = listSql('posts', '"id", "title"', shape, db.dialect);
    judged.push([name, await db.costOf(sql, costFacts('posts', shape))]);
  }
  return judged;
}
