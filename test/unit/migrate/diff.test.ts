import { describe, expect, it } from 'vitest';
import { cautionsOf } from '../../../src/migrate/cautions.js';
import { columnLoss, lossesOf } from '../../../src/migrate/data-loss.js';
import { diff, isEmpty, type Step } from '../../../src/migrate/diff.js';
import { sqliteMigration } from '../../../src/migrate/sqlite.js';
import { postgresMigration } from '../../../src/migrate/postgres.js';
import type { ColumnSnapshot, Snapshot } from '../../../src/schema/snapshot.js';
import { column, notes } from './snapshots.js';
import type { Field } from '../../../src/model.js';
import { api, field, resource } from '../../helpers/model.js';

const steps = (before: Snapshot, after: Snapshot, renames: [string, string][] = []): Step['kind'][] =>
  diff(before, after, new Map([['notes', new Map(renames)]])).changed.flatMap((c) => c.steps.map((s) => s.kind));

describe('the diff of two data models', () => {
  it.each<[string, Snapshot, Snapshot, [string, string][], Step['kind'][]]>([
    ['nothing changed', notes(column('body')), notes(column('body')), [], []],
    ['a field added', notes(), notes(column('body')), [], ['addColumn']],
    ['a field removed', notes(column('body')), notes(), [], ['dropColumn']],
    // without renamedFrom, a rename is a removal and an addition
    [
      'a field renamed without saying so',
      notes(column('body')),
      notes(column('content')),
      [],
      ['addColumn', 'dropColumn'],
    ],
    [
      'a field renamed with renamedFrom',
      notes(column('body')),
      notes(column('content')),
      [['body', 'content']],
      ['renameColumn'],
    ],
    [
      'renamed and widened',
      notes(column('body')),
      notes(column('content', { type: 'text' })),
      [['body', 'content']],
      ['renameColumn', 'alterColumn'],
    ],
    ['made required', notes(column('body')), notes(column('body', { notNull: true })), [], ['alterColumn']],
    // the API name of a field is not part of its column
    [
      'the same column under another field name',
      notes(column('body')),
      notes(column('body', { field: 'text' })),
      [],
      [],
    ],
  ])('%s', (_case, before, after, renames, want) => {
    expect(steps(before, after, renames)).toEqual(want);
  });

  it('finds created and dropped tables, and nothing when nothing changed', () => {
    const before: Snapshot = { tables: [{ name: 'users', resource: 'users', id: 'uuid', columns: [] }] };
    const after: Snapshot = { tables: [{ name: 'notes', resource: 'notes', id: 'uuid', columns: [] }] };
    const changes = diff(before, after, new Map());
    expect([changes.created.map((t) => t.name), changes.dropped.map((t) => t.name)]).toEqual([['notes'], ['users']]);
    expect(isEmpty(diff(after, after, new Map()))).toBe(true);
  });
});

describe('what a column change loses', () => {
  it.each<[string, ColumnSnapshot, ColumnSnapshot, RegExp | undefined]>([
    ['integer to number: kept', column('n', { type: 'integer' }), column('n', { type: 'number' }), undefined],
    ['string to text: kept', column('s'), column('s', { type: 'text' }), undefined],
    ['enum to string: kept', column('e', { type: 'enum', values: ['a'] }), column('e'), undefined],
    [
      'number to integer: lost',
      column('n', { type: 'number' }),
      column('n', { type: 'integer' }),
      /changes from number to integer/,
    ],
    [
      'an enum value removed: its records get the default',
      column('e', { type: 'enum', values: ['a', 'b'] }),
      column('e', { type: 'enum', values: ['a'], default: 'a' }),
      /loses the values "b": records holding them would get "a"/,
    ],
    [
      'an enum value added: kept',
      column('e', { type: 'enum', values: ['a'] }),
      column('e', { type: 'enum', values: ['a', 'b'] }),
      undefined,
    ],
    [
      'made required with no default',
      column('s'),
      column('s', { notNull: true }),
      /records where it is null would be deleted/,
    ],
    ['made required with a default: kept', column('s'), column('s', { notNull: true, default: 'x' }), undefined],
    [
      'string to datetime: what is no datetime is lost',
      column('s'),
      column('s', { type: 'datetime' }),
      /changes from string to datetime: stored values that do not convert would be lost/,
    ],
    [
      'string to a required uuid with no default: the records without one are deleted',
      column('s', { notNull: true }),
      column('s', { type: 'uuid', notNull: true }),
      /changes from string to uuid: records whose s is not a uuid would be deleted/,
    ],
    ['date to string: kept', column('d', { type: 'date' }), column('d'), undefined],
  ])('%s', (_case, from, to, want) => {
    const loss = columnLoss('notes', from, to);
    if (want === undefined) expect(loss).toBeUndefined();
    else expect(loss?.message).toMatch(want);
  });

  it('names every loss of a migration with what would keep the data, a rename only where one is possible', () => {
    const before = notes(column('body'), column('stars', { type: 'number' }));
    const after = notes(column('content'), column('stars', { type: 'integer' }));
    const losses = lossesOf(diff(before, after, new Map()), before);
    expect(losses.map((l) => l.keep)).toEqual([
      'keep notes.stars a number, or add a new field for the integer values',
      'if content is body renamed, say `renamedFrom: body` on it; else keep body',
    ]);
  });
});

describe('SQLite migrations', () => {
  const migrate = (before: Snapshot, after: Snapshot, renames: [string, string][] = []): string[] =>
    sqliteMigration(diff(before, after, new Map([['notes', new Map(renames)]])));

  it('adds a nullable column in place and renames one in place', () => {
    expect(migrate(notes(), notes(column('body')))).toEqual(['ALTER TABLE "notes" ADD COLUMN "body" TEXT']);
    expect(migrate(notes(column('body')), notes(column('content')), [['body', 'content']])).toEqual([
      'ALTER TABLE "notes" RENAME COLUMN "body" TO "content"',
    ]);
  });

  it('adds a unique column and a required one with a default in place (found by a newcomer: they rebuilt the table)', () => {
    expect(
      migrate(notes(), notes(column('code', { unique: true }), column('done', { notNull: true, default: 'no' }))),
    ).toEqual([
      'ALTER TABLE "notes" ADD COLUMN "code" TEXT',
      `ALTER TABLE "notes" ADD COLUMN "done" TEXT NOT NULL DEFAULT 'no'`,
      'CREATE UNIQUE INDEX "notes_code_key" ON "notes" ("code")',
    ]);
  });

  it('rebuilds the table for a change SQLite cannot make in place, copying the rows', () => {
    const sql = migrate(notes(column('body')), notes(column('body', { notNull: true, default: 'x' }))).join('\n');
    expect(sql).toMatch(/CREATE TABLE "notes__rebuild"/);
    expect(sql).toMatch(/INSERT INTO "notes__rebuild" .* SELECT .* FROM "notes"/s);
    expect(sql).toMatch(/DROP TABLE "notes"/);
    expect(sql).toMatch(/ALTER TABLE "notes__rebuild" RENAME TO "notes"/);
  });

  it('gives a new version to the rows whose values a rebuild changes, and only to them (found by a newcomer)', () => {
    const copy = (before: Snapshot, after: Snapshot) =>
      migrate(before, after).find((statement) => statement.startsWith('INSERT INTO "notes__rebuild"'));
    // NULLs take the default: those rows change
    expect(copy(notes(column('body')), notes(column('body', { notNull: true, default: 'x' })))).toContain(
      `"version" + (CASE WHEN coalesce("body", 'x') IS NOT "body" THEN 1 ELSE 0 END)`,
    );
    // text to integer: another type in JSON, even where SQLite compares '7' and 7 as equal (found by a reviewer)
    expect(copy(notes(column('code')), notes(column('code', { type: 'integer' })))).toContain(
      `"version" + (CASE WHEN "code" IS NOT NULL OR CAST("code" AS INTEGER) IS NOT "code" THEN 1 ELSE 0 END)`,
    );
    // a ref dropped (SQLite's DROP COLUMN cannot) beside a column made unique changes no stored value
    const ref = { table: 'users', idKind: 'uuid' as const, onDelete: 'cascade' as const };
    const unchanged = copy(
      notes(column('body'), column('user_id', { type: 'ref', index: true, ref })),
      notes(column('body', { unique: true, index: true })),
    );
    expect(unchanged).toMatch(/"updated_at", "version" FROM "notes"$/);
  });

  it('adds and drops a unique key of several columns in place, and only when the keys change', () => {
    const keyed = (keys: string[][]): Snapshot => {
      const snapshot = notes(column('code'), column('region'));
      return { tables: snapshot.tables.map((t) => (t.name === 'notes' ? { ...t, keys } : t)) };
    };
    expect(migrate(keyed([]), keyed([['code', 'region']]))).toEqual([
      'CREATE UNIQUE INDEX "notes_code_region_key" ON "notes" ("code", "region")',
    ]);
    expect(migrate(keyed([['code', 'region']]), keyed([]))).toEqual(['DROP INDEX "notes_code_region_key"']);
    expect(migrate(keyed([['code', 'region']]), keyed([['code', 'region']]))).toEqual([]);
    // a snapshot of an older generator has no keys at all: the same as none
    expect(migrate(notes(column('code'), column('region')), keyed([]))).toEqual([]);
    expect(postgresMigration(diff(keyed([]), keyed([['region', 'code']]), new Map()), keyed([]))).toEqual([
      'CREATE UNIQUE INDEX "notes_region_code_key" ON "notes" ("region", "code")',
    ]);
  });

  it('rebuilds the plain indexes of an older snapshot in id order, once, and only where there are some', () => {
    const indexed = notes(column('author_id', { index: true }), column('title'));
    const inIdOrder = (snapshot: Snapshot): Snapshot => ({
      tables: snapshot.tables.map((t) => ({ ...t, indexOrder: 'id' as const })),
    });
    expect(migrate(indexed, inIdOrder(indexed))).toEqual([
      'DROP INDEX "notes_author_id_idx"',
      'CREATE INDEX "notes_author_id_idx" ON "notes" ("author_id", "id")',
    ]);
    expect(migrate(inIdOrder(indexed), inIdOrder(indexed))).toEqual([]);
    // users has no index: no change to it, so no statement
    expect(diff(indexed, inIdOrder(indexed), new Map()).changed.map((c) => c.after.name)).toEqual(['notes']);
  });
});

describe('the cautions of a migration: a uniqueness the rows there are may break', () => {
  const keyed = (keys: string[][], ...columns: ColumnSnapshot[]): Snapshot => {
    const snapshot = notes(...columns);
    return { tables: snapshot.tables.map((t) => (t.name === 'notes' ? { ...t, keys } : t)) };
  };
  it.each<[string, Snapshot, Snapshot, RegExp[]]>([
    [
      'a unique field added with a default',
      notes(),
      notes(column('code', { unique: true, notNull: true, default: 'x' })),
      [/^notes\.code is added unique with the default "x", which every notes record that exists would take/],
    ],
    [
      'a unique field added with no default (null is not a value)',
      notes(),
      notes(column('code', { unique: true })),
      [],
    ],
    ['a field added with a default, not unique', notes(), notes(column('code', { default: 'x' })), []],
    [
      'a field made unique',
      notes(column('code')),
      notes(column('code', { unique: true })),
      [/^notes\.code becomes unique: the migration fails, changing nothing, where two notes records share/],
    ],
    [
      'a unique email made case-insensitive',
      notes(column('email', { unique: true })),
      notes(column('email', { unique: true, caseInsensitive: true })),
      [/^notes\.email becomes unique \(ignoring the case of letters\)/],
    ],
    ['a field that stays unique', notes(column('code', { unique: true })), notes(column('code', { unique: true })), []],
    [
      'a unique key added',
      keyed([], column('a'), column('b')),
      keyed([['a', 'b']], column('a'), column('b')),
      [/^notes gets the unique key \(a, b\)/],
    ],
    // a key is a set of columns (found by a reviewer)
    [
      'a unique key in another order',
      keyed([['a', 'b']], column('a'), column('b')),
      keyed([['b', 'a']], column('a'), column('b')),
      [],
    ],
    [
      'a unique key whose column is renamed',
      keyed([['a', 'b']], column('a'), column('b')),
      keyed([['a', 'c']], column('a'), column('c')),
      [],
    ],
  ])('%s', (_case, before, after, want) => {
    const renames = new Map([['notes', new Map([['b', 'c']])]]);
    const cautions = cautionsOf(diff(before, after, renames));
    expect(cautions).toHaveLength(want.length);
    want.forEach((pattern, i) => expect(cautions[i]).toMatch(pattern));
  });
});

describe('the cautions of a migration: what a client of the API now lacks (found by a newcomer)', () => {
  const model = (...fields: Field[]) => api([resource('notes', fields, { owners: ['ownerId'] })]);
  it.each<[string, Field, boolean]>([
    ['a required field with a default', field('code', 'string', { required: true, default: 'x' }), true],
    ['an optional field with a default', field('code', 'string', { default: 'x' }), false],
    ['a required read-only field', field('code', 'string', { required: true, default: 'x', readOnly: true }), false],
    [
      'a required owner field (it takes the caller)',
      field('ownerId', 'string', { required: true, default: 'x' }),
      false,
    ],
  ])('%s', (_case, added, cautioned) => {
    const after = notes(column(added.column, { field: added.name, notNull: true, default: 'x' }));
    const cautions = cautionsOf(diff(notes(), after, new Map()), model(added));
    expect(cautions).toEqual(
      cautioned
        ? [
            expect.stringMatching(
              /^notes\.code is added required: a client that leaves it out of a POST or a PUT now gets a 400/,
            ),
          ]
        : [],
    );
  });

  it.each<[string, Field, boolean]>([
    ['made required with a default', field('code', 'string', { required: true, default: 'x' }), true],
    ['made not nullable, optional, with a default', field('code', 'string', { default: 'x' }), false],
    [
      'a read-only field made required',
      field('code', 'string', { required: true, default: 'x', readOnly: true }),
      false,
    ],
  ])('an existing field %s', (_case, made, cautioned) => {
    const before = notes(column(made.column, { field: made.name }));
    const after = notes(column(made.column, { field: made.name, notNull: true, default: 'x' }));
    const cautions = cautionsOf(diff(before, after, new Map()), model(made));
    expect(cautions).toEqual(
      cautioned
        ? [
            expect.stringMatching(
              /^notes\.code becomes required: the records where it is null take its default "x" \(and new ETags\), and a client that leaves it out of a POST or a PUT now gets a 400/,
            ),
          ]
        : [],
    );
  });
});
