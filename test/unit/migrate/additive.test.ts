import { describe, expect, it } from 'vitest';
import { planMigration } from '../../../src/migrate/plan-migration.js';
import { definitionOf } from '../../../src/pipeline/read-definition.js';
import { snapshotOf } from '../../../src/schema/snapshot.js';

/**
 * Whether a change of the definition makes an additive migration (SPEC §11: an older build still starts on the
 * database it leaves): given the fields (and more) of `notes` before and after, the migration's mark and what of it
 * is not additive.
 */
const definition = (notes: string, more = ''): string => `
name: marks
version: 1.0.0
auth: { default: public }
resources:
  users:
    fields:
      name: { type: string, required: true }
  notes:
${notes
  .trim()
  .split('\n')
  .map((line) => `    ${line.trim().replace(/^- /, '  ')}`)
  .join('\n')}
${more}`;

const BASE = `
fields:
- title: { type: string, required: true }
- body: { type: text, nullable: true }
- stars: { type: integer, default: 0 }
- code: { type: string, nullable: true, index: true }
- kind: { type: enum, values: [a, b], nullable: true }
`;

const rows: { name: string; after: string; more?: string; want: string[] }[] = [
  { name: 'a new nullable field', after: BASE + '- note: { type: string, nullable: true }', want: [] },
  { name: 'a new field with a default', after: BASE + '- pinned: { type: boolean, default: false }', want: [] },
  {
    name: 'a new required field with a default',
    after: BASE + "- topic: { type: string, required: true, default: 'misc' }",
    want: [],
  },
  { name: 'a new nullable ref', after: BASE + '- userId: { type: ref, to: users, nullable: true }', want: [] },
  {
    name: 'a new nullable unique field',
    after: BASE + '- slug: { type: string, nullable: true, unique: true }',
    want: [],
  },
  {
    name: 'a new unique field with a default',
    after: BASE + "- slug: { type: string, unique: true, default: 'x' }",
    want: ['add notes.slug unique with a default'],
  },
  {
    name: 'a new index',
    after: BASE.replace('body: { type: text, nullable: true }', 'body: { type: text, nullable: true, index: true }'),
    want: [],
  },
  {
    name: 'a new trigram index',
    after: BASE.replace('body: { type: text, nullable: true }', 'body: { type: text, nullable: true, index: trigram }'),
    want: [],
  },
  {
    name: 'a new resource',
    after: BASE,
    more: '  tags:\n    fields:\n      label: { type: string, required: true }',
    want: [],
  },
  { name: 'events turned on', after: BASE, more: 'events: {}', want: [] },
  {
    name: 'a field renamed',
    after: BASE.replace('body: { type: text', 'content: { type: text, renamedFrom: body'),
    want: ['rename notes.body'],
  },
  {
    name: 'a field removed',
    after: BASE.replace('- body: { type: text, nullable: true }\n', ''),
    want: ['drop notes.body'],
  },
  {
    name: 'a type widened',
    after: BASE.replace('stars: { type: integer', 'stars: { type: number'),
    want: ['change notes.stars'],
  },
  {
    name: 'a field made nullable',
    after: BASE.replace('title: { type: string, required: true }', 'title: { type: string, nullable: true }'),
    want: ['change notes.title'],
  },
  {
    name: 'a field made required, with a default',
    after: BASE.replace('body: { type: text, nullable: true }', "body: { type: text, required: true, default: '' }"),
    want: ['change notes.body'],
  },
  {
    name: 'a default changed',
    after: BASE.replace('stars: { type: integer, default: 0 }', 'stars: { type: integer, default: 1 }'),
    want: ['change notes.stars'],
  },
  {
    name: 'an enum value added',
    after: BASE.replace('values: [a, b]', 'values: [a, b, c]'),
    want: ['change notes.kind'],
  },
  {
    name: 'a field made unique',
    after: BASE.replace(
      'code: { type: string, nullable: true, index: true }',
      'code: { type: string, nullable: true, unique: true }',
    ),
    want: ['change notes.code'],
  },
  {
    name: 'an index removed',
    after: BASE.replace(
      'code: { type: string, nullable: true, index: true }',
      'code: { type: string, nullable: true }',
    ),
    want: ['change notes.code'],
  },
  { name: 'a unique key added', after: BASE + '\nunique: [[title, code]]', want: ['change the unique keys of notes'] },
  { name: 'new ids', after: 'id: integer\n' + BASE, want: ['recreate the table of notes (new id kind)'] },
  { name: 'a resource renamed', after: BASE, want: ['rename notes to memos'] },
  { name: 'a resource removed', after: BASE, want: ['drop the table of users'] },
];

/** The migration from BASE to a row's definition. */
function marks({ name, after, more = '' }: (typeof rows)[number]): { additive: boolean; notAdditive: string[] } {
  const before = definitionOf('marks.yaml', definition(BASE));
  let text = definition(after, more);
  if (name === 'a resource renamed') text = text.replace('  notes:\n', '  memos:\n    renamedFrom: notes\n');
  if (name === 'a resource removed') text = text.replace(/ {2}users:\n.*\n.*\n/, '');
  const migration = planMigration(definitionOf('marks.yaml', text), snapshotOf(before), ['0001-initial'], true);
  if (migration === undefined) throw new Error(`${name}: no migration`);
  return { additive: migration.additive, notAdditive: migration.notAdditive };
}

describe('additive migrations', () => {
  it.each(rows)('$name', (row) => {
    expect(marks(row)).toEqual({ additive: row.want.length === 0, notAdditive: row.want });
  });

  it('the first migration is additive: it creates every table', () => {
    const api = definitionOf('marks.yaml', definition(BASE));
    expect(planMigration(api, undefined, [], false)).toMatchObject({ additive: true, notAdditive: [] });
  });
});
