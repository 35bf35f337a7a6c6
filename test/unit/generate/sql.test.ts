import { describe, expect, it } from 'vitest';
import { columnDefinition, createIndex, dependencyOrder, indexesOf } from '../../../src/schema/ddl.js';
import { columnOf, snapshotOf } from '../../../src/schema/snapshot.js';
import { postgres, sqlite } from '../../../src/schema/dialect.js';
import { resourceStatements, selectListOf } from '../../../src/generate/sql/statements.js';
import { api, field, resource } from '../../helpers/model.js';

const users = resource('users', [field('email', 'string', { required: true, unique: true })]);
const tasks = resource('tasks', [], { id: 'integer' });
const model = api([users, tasks]);

describe('SQLite column definitions', () => {
  it.each([
    [field('title', 'string', { required: true }), '"title" TEXT NOT NULL'],
    [field('body', 'text'), '"body" TEXT'],
    [field('views', 'integer', { default: 0 }), '"views" INTEGER NOT NULL DEFAULT 0'],
    [field('rating', 'number', { nullable: true, default: 2.5 }), '"rating" REAL DEFAULT 2.5'],
    [field('featured', 'boolean', { default: false }), '"featured" INTEGER NOT NULL DEFAULT 0'],
    [field('status', 'enum', { values: ["it's", 'b'], default: "it's" }), `"status" TEXT NOT NULL DEFAULT 'it''s'`],
    [field('meta', 'json', { default: { a: "'" } }), `"meta" TEXT NOT NULL DEFAULT '{"a":"''"}'`],
    [
      field('authorId', 'ref', { required: true, ref: { to: 'users', onDelete: 'cascade', as: 'x', inverse: 'y' } }),
      '"author_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE',
    ],
    [
      field('taskId', 'ref', { nullable: true, ref: { to: 'tasks', onDelete: 'setNull', as: 'x', inverse: 'y' } }),
      '"task_id" INTEGER REFERENCES "tasks" ("id") ON DELETE SET NULL',
    ],
  ])('%o', (given, want) => expect(columnDefinition(columnOf(model, given), sqlite, 'posts')).toBe(want));
});

describe('PostgreSQL column definitions', () => {
  it.each([
    [field('title', 'string', { required: true }), '"title" TEXT COLLATE "C" NOT NULL'],
    [field('views', 'integer', { default: 0 }), '"views" BIGINT NOT NULL DEFAULT 0'],
    [field('rating', 'number', { nullable: true, default: 2.5 }), '"rating" DOUBLE PRECISION DEFAULT 2.5'],
    [field('featured', 'boolean', { default: false }), '"featured" BOOLEAN NOT NULL DEFAULT FALSE'],
    [field('at', 'datetime', { nullable: true }), '"at" TIMESTAMPTZ'],
    [field('meta', 'json', { default: { a: "'" } }), `"meta" JSONB NOT NULL DEFAULT '{"a":"''"}'::jsonb`],
    [
      field('authorId', 'ref', { required: true, ref: { to: 'users', onDelete: 'restrict', as: 'x', inverse: 'y' } }),
      '"author_id" TEXT COLLATE "C" NOT NULL CONSTRAINT "posts_author_id_fkey" REFERENCES "users" ("id") ON DELETE RESTRICT',
    ],
    [
      field('taskId', 'ref', { nullable: true, ref: { to: 'tasks', onDelete: 'setNull', as: 'x', inverse: 'y' } }),
      '"task_id" BIGINT CONSTRAINT "posts_task_id_fkey" REFERENCES "tasks" ("id") ON DELETE SET NULL',
    ],
  ])('%o', (given, want) => expect(columnDefinition(columnOf(model, given), postgres, 'posts')).toBe(want));
});

describe('indexes', () => {
  it('makes unique indexes for unique fields and plain ones for index and ref fields', () => {
    const posts = resource('posts', [
      field('slug', 'string', { unique: true }),
      field('rank', 'integer', { index: true }),
      field('authorId', 'ref', { ref: { to: 'users', onDelete: 'restrict', as: 'x', inverse: 'y' } }),
      field('plain', 'string'),
    ]);
    expect(indexesOf(snapshotOf(api([users, posts])).tables[1]!).map((i) => createIndex('posts', i, sqlite))).toEqual([
      'CREATE UNIQUE INDEX "posts_slug_key" ON "posts" ("slug")',
      // plain indexes end with the id: a listing filtered on the column reads it in id order
      'CREATE INDEX "posts_rank_idx" ON "posts" ("rank", "id")',
      'CREATE INDEX "posts_author_id_idx" ON "posts" ("author_id", "id")',
    ]);
  });
});

describe('dependency order', () => {
  it('puts referenced resources first and survives cycles', () => {
    const a = resource('a', [field('bId', 'ref', { ref: { to: 'b', onDelete: 'restrict', as: 'x', inverse: 'y' } })]);
    const b = resource('b', [field('cId', 'ref', { ref: { to: 'c', onDelete: 'restrict', as: 'x', inverse: 'y' } })]);
    const c = resource('c', [field('aId', 'ref', { ref: { to: 'a', onDelete: 'restrict', as: 'x', inverse: 'y' } })]);
    const d = resource('d', []);
    expect(dependencyOrder(snapshotOf(api([a, d, b, c])).tables).map((t) => t.name)).toEqual(['c', 'b', 'a', 'd']);
  });
});

describe('statements', () => {
  const posts = resource('posts', [
    field('title', 'string', { required: true }),
    field('status', 'string', { readOnly: true }),
  ]);
  const sql = Object.fromEntries(resourceStatements(posts).map((s) => [s.key, s]));

  it('inserts the id, writable fields, server fields and timestamps, returning the row', () => {
    expect(sql.insert?.sql).toBe(
      [
        'INSERT INTO "posts" ("id", "title", "status", "created_at", "updated_at")',
        'VALUES (:id, :title, :status, :created_at, :updated_at)',
        'RETURNING "id", "title", "status", "created_at", "updated_at", "version"',
      ].join('\n'),
    );
    expect(sql.insert?.names).toEqual(['id', 'title', 'status', 'created_at', 'updated_at']);
  });

  it('updates writable fields only, bumps the version, and can be guarded by one', () => {
    expect(sql.update?.sql).toBe(
      [
        'UPDATE "posts"',
        'SET',
        '  "title" = :title,',
        '  "updated_at" = :updated_at,',
        '  "version" = "version" + 1',
        'WHERE "id" = :id',
        '  AND "version" = coalesce(:if_version, "version")',
        'RETURNING "id", "title", "status", "created_at", "updated_at", "version"',
      ].join('\n'),
    );
  });

  it('patches in one statement: each field kept unless given, the read-only ones too (for your code)', () => {
    // title is NOT NULL: its parameter is NULL only when it is not given; status can be NULL: a flag says it is given
    expect(sql.patch?.sql).toContain('"title" = coalesce(:title, "title"),');
    expect(sql.patch?.sql).toContain('"status" = CASE WHEN :given_status = 1 THEN :status ELSE "status" END,');
    expect(sql.patch?.names).toEqual(['title', 'given_status', 'status', 'updated_at', 'id', 'if_version']);
    // a PUT replaces what a client writes: no read-only field
    expect(sql.update?.names).not.toContain('status');
  });

  it.each<[string, Parameters<typeof field>, string]>([
    ['required', ['a', 'string', { required: true }], '"a" = coalesce(:a, "a")'],
    ['with a default, which a null given takes', ['a', 'integer', { default: 3 }], '"a" = coalesce(:a, "a")'],
    ['optional: null clears it', ['a', 'string', {}], '"a" = CASE WHEN :given_a = 1 THEN :a ELSE "a" END'],
    [
      'nullable, with a default',
      ['a', 'integer', { default: 3, nullable: true }],
      '"a" = CASE WHEN :given_a = 1 THEN :a ELSE "a" END',
    ],
    [
      'json, whose null is a value',
      ['a', 'json', { required: true }],
      '"a" = CASE WHEN :given_a = 1 THEN :a ELSE "a" END',
    ],
  ])('patches a field %s', (_, [name, type, options], want) => {
    const patch = resourceStatements(resource('things', [field(name, type, options)])).find((s) => s.key === 'patch');
    expect(patch?.sql).toContain(want);
  });

  it('selects every column the store decodes, and writes no listing ahead (listings are per query shape)', () => {
    expect(selectListOf(posts)).toBe('"id", "title", "status", "created_at", "updated_at", "version"');
    expect(Object.keys(sql)).toEqual(['get', 'insert', 'update', 'patch', 'delete']);
  });

  it("restricts to the owner's records NULL-safely, in SQL both databases read", () => {
    const owned = resource('notes', [field('ownerId', 'string', { readOnly: true })], { owners: ['ownerId'] });
    const get = resourceStatements(owned).find((s) => s.key === 'get');
    expect(get?.sql).toBe(
      [
        'SELECT "id", "owner_id", "created_at", "updated_at", "version"',
        'FROM "notes"',
        'WHERE "id" = :id',
        '  AND "owner_id" IS NOT DISTINCT FROM coalesce(:owner_scope, "owner_id")',
      ].join('\n'),
    );
    expect(get?.names).toEqual(['id', 'owner_scope']);
  });

  it("keeps an update or delete rule's when in the WHERE, unless your code's write says any state (:any_state)", () => {
    const stated = resource(
      'repairs',
      [field('status', 'string', { readOnly: true }), field('paid', 'boolean', { nullable: true })],
      {
        writableWhen: {
          update: [{ field: 'status', values: ['open', 'doing'] }],
          delete: [
            { field: 'status', values: ['done'] },
            { field: 'paid', values: [true, null] },
          ],
        },
      },
    );
    const written = Object.fromEntries(resourceStatements(stated).map((s) => [s.key, s]));
    const where = (key: string): string[] =>
      (written[key]?.sql ?? '').split('\n').filter((l) => /^ +(AND|OR) /.test(l));
    for (const key of ['update', 'patch']) {
      expect(where(key)).toEqual([
        '  AND "version" = coalesce(:if_version, "version")',
        '  AND (:any_state = 1',
        '    OR "status" IN (:when_status_1, :when_status_2))',
      ]);
      // named in the order they appear: PostgreSQL types :any_state by its first use, an integer
      expect(written[key]?.names.slice(-3)).toEqual(['any_state', 'when_status_1', 'when_status_2']);
    }
    expect(where('delete')).toEqual([
      '  AND "version" = coalesce(:if_version, "version")',
      '  AND (:any_state = 1',
      '    OR ("status" IN (:when_status_1) AND ("paid" IN (:when_paid_1) OR "paid" IS NULL)))',
    ]);
    // no rule, no flag
    expect(sql.update?.names).not.toContain('any_state');
  });

  it("asks a delete that reaches other records its own conditions first, as a query of the delete's WHERE", () => {
    const stated = resource('invoices', [field('status', 'string')], {
      writableWhen: { update: [], delete: [{ field: 'status', values: ['done'] }] },
    });
    const keys = (options: Parameters<typeof resourceStatements>[1]) =>
      resourceStatements(stated, options).map((s) => s.key);
    expect(keys({ events: true })).not.toContain('deletable');
    expect(keys({ events: true, deleteReaches: true })).toContain('deletable');
    const written = Object.fromEntries(
      resourceStatements(stated, { events: true, deleteReaches: true }).map((s) => [s.key, s]),
    );
    const remove = written.delete?.sql ?? '';
    expect(written.deletable?.sql).toBe(
      [
        'SELECT 1 FROM "invoices"',
        ...remove.split('\n').slice(
          1,
          remove.split('\n').findIndex((l) => l.startsWith('RETURNING')),
        ),
      ].join('\n'),
    );
    expect(written.deletable?.sql).toContain('"status" IN (:when_status_1)');
    expect(written.deletable?.names).toEqual(written.delete?.names);
  });

  it('lets integer ids be made by the database', () => {
    const insert = resourceStatements(tasks).find((s) => s.key === 'insert')?.sql;
    expect(insert).toBe(
      [
        'INSERT INTO "tasks" ("created_at", "updated_at")',
        'VALUES (:created_at, :updated_at)',
        'RETURNING "id", "created_at", "updated_at", "version"',
      ].join('\n'),
    );
  });
});
