import { describe, expect, it } from 'vitest';
import { formatNote } from '../../../src/errors.js';
import { definitionWarned } from '../../../src/pipeline/read-definition.js';
import { dedent } from './helpers.js';

/**
 * SPEC §10: `restsmith validate` names, as a note, every field whose listings no index serves (contract/scans.ts):
 * given a field, want the operators (and the sort) that read the whole table, and what would serve them.
 */
const definition = (field: string, extra = ''): string =>
  dedent(`
    name: notes
    version: "1"
    resources:
      users:
        owner: id
        fields: { name: { type: string, unique: true, maxLength: 100, index: trigram } }
      posts:
        owner: authorId
        fields:
          authorId: { type: ref, to: users }
          probe: ${field}
${extra}
  `);

const notesOf = (text: string): string[] =>
  definitionWarned('api.yaml', text)
    .notes.filter((n) => n.path === 'resources.posts.fields.probe')
    .map((n) => n.message);

const ORDERED = 'eq, gt, gte, lt, lte, in';

describe('which listings of a field read the whole table', () => {
  it.each<[string, string, string[], string?]>([
    [
      'a string',
      'string',
      [`${ORDERED}, contains and sort (index: true serves all but contains; index: trigram serves contains)`],
    ],
    [
      'an indexed string',
      '{ type: string, index: true }',
      ['contains (index: trigram would serve contains, in place of index: true)'],
    ],
    [
      'a trigram-indexed text',
      '{ type: text, maxLength: 5000, index: trigram }',
      [`${ORDERED} and sort (index: trigram serves contains only)`],
    ],
    ['a unique string', '{ type: string, unique: true }', ['contains (index: trigram serves contains)']],
    ['a unique trigram-indexed string: nothing', '{ type: string, unique: true, maxLength: 100, index: trigram }', []],
    // its unique index is on lower(email): it serves eq and in, not the text as written
    [
      'a unique email',
      '{ type: string, format: email, unique: true }',
      ['gt, gte, lt, lte, contains and sort (index: trigram serves contains)'],
    ],
    ['an integer', 'integer', [`${ORDERED} and sort (index: true serves them)`]],
    ['an indexed datetime: nothing', '{ type: datetime, index: true }', []],
    ['a boolean (ne scans too, but no index would serve it)', 'boolean', ['eq and sort (index: true serves them)']],
    ['an enum', '{ type: enum, values: [a, b] }', ['eq, in and sort (index: true serves them)']],
    ['a ref: its own index', '{ type: ref, to: users, as: probed, inverse: probedPosts }', []],
    ['a writeOnly string: not listable', '{ type: string, writeOnly: true }', []],
    ['a json field: not listable', 'json', []],
    ['the first field of a unique key: its index', 'integer', [], '        unique: [[probe, authorId]]'],
  ])('%s', (_case, field, want, extra) => {
    expect(notesOf(definition(field, extra))).toEqual(want.map((w) => `listings read the whole table for ${w}`));
  });

  it('says nothing of id, the timestamps, owners and refs', () => {
    const notes = definitionWarned(
      'api.yaml',
      definition('{ type: string, unique: true, maxLength: 100, index: trigram }'),
    ).notes;
    expect(notes.map((n) => n.path)).toEqual([]);
  });

  it('is one line a field, at the field', () => {
    const notes = definitionWarned('api.yaml', definition('integer')).notes.map(formatNote);
    expect(notes).toEqual([
      'api.yaml:11:7  resources.posts.fields.probe  note: listings read the whole table for eq, gt, gte, lt, lte, in and sort (index: true serves them)',
    ]);
  });
});

describe('a trigram-indexed field whose values a write may make long', () => {
  const lengthNotes = (field: string): string[] =>
    notesOf(definition(field)).filter((n) => !n.startsWith('listings read the whole table'));
  it.each<[string, string, string[]]>([
    ['no maxLength', '{ type: text, index: trigram }', ['none is set']],
    ['a maxLength above 10,000', '{ type: text, maxLength: 10001, index: trigram }', ['it is 10001']],
    ['a maxLength of 10,000: nothing', '{ type: text, maxLength: 10000, index: trigram }', []],
    ['no trigram index: nothing', '{ type: text }', []],
  ])('%s', (_case, field, want) => {
    expect(lengthNotes(field)).toEqual(
      want.map(
        (w) =>
          `index: trigram indexes every character a write sends: set a maxLength of at most 10,000 (${w}), or a write of a long value holds the database for as long as it takes (900 KB: half a second)`,
      ),
    );
  });
});
