import { beforeAll, describe, expect, it } from 'vitest';
import { expectAnotherRun } from '../../../src/memo.js';
import { resourceView } from '../../../src/generate/resource-view.js';
import { canonical } from '../../../src/contract/neighbourhood.js';
import { resourceViews } from '../../../src/generate/view-memo.js';
import type { Api } from '../../../src/model.js';
import { definitionOf } from '../../../src/pipeline/read-definition.js';

/** A chain of eight resources, each with a ref to the one before it; `extra` fields on the one named. */
function chain(extra: Record<string, string> = {}, includeDepth = 1): Api {
  const resources = Array.from({ length: 8 }, (_, i) => {
    const ref = i === 0 ? '' : `\n      prevId: { type: ref, to: m${i - 1}, nullable: true, onDelete: setNull }`;
    const more = extra[`m${i}`] === undefined ? '' : `\n      ${extra[`m${i}`]}`;
    return `  m${i}:\n    fields:\n      title: { type: string, required: true }${ref}${more}`;
  });
  const text = [
    'name: memo',
    'version: 1.0.0',
    'auth: { default: public }',
    `limits: { includeDepth: ${includeDepth} }`,
  ];
  return definitionOf('memo.yaml', [...text, 'resources:', ...resources, ''].join('\n'));
}

// as under `generate --watch`: what a run makes is kept for the next
beforeAll(expectAnotherRun);

const NO_ORPHANS = new Map<string, readonly string[]>();

/** Which views of a second run are the very objects of the first: given an edit, want the resources made again. */
describe('views remembered from the last run', () => {
  it.each<[string, Api, string[]]>([
    ['nothing changed', chain(), []],
    ['a field added to m0: its neighbours within three steps', chain({ m0: 'note: string' }), ['m0', 'm1', 'm2', 'm3']],
    [
      'a field added to m4: three steps either way',
      chain({ m4: 'note: string' }),
      ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'],
    ],
    ['a setting: every one', chain({}, 2), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']],
  ])('%s', (_, next, want) => {
    const before = resourceViews(chain(), NO_ORPHANS);
    const after = resourceViews(next, NO_ORPHANS);
    expect(after.flatMap((view, i) => (view === before[i] ? [] : [view.name]))).toEqual(want);
    // and each is the view made afresh from the whole api
    next.resources.forEach((r, i) => expect(after[i]).toEqual(resourceView(next, r)));
  });

  it('a handler left without its action makes its resource view again', () => {
    const api = chain();
    const before = resourceViews(api, NO_ORPHANS);
    const after = resourceViews(api, new Map([['m2', ['archive']]]));
    expect(after.flatMap((view, i) => (view === before[i] ? [] : [view.name]))).toEqual(['m2']);
  });
});

/** canonical tells apart what JSON does not: given two values, want them told apart. */
describe('canonical', () => {
  it.each<[string, unknown, unknown]>([
    ['an undefined property and none', { a: 1, b: undefined }, { a: 1 }],
    ['Infinity and null', { n: Infinity }, { n: null }],
    ['-0 and 0', { n: -0 }, { n: 0 }],
    ['NaN and -Infinity', [NaN], [-Infinity]],
    ['a string like a marker and the marker', { s: '\u0000undefined' }, { s: undefined }],
  ])('%s', (_, a, b) => {
    expect(canonical(a)).not.toEqual(canonical(b));
  });

  it('is JSON where JSON tells values apart', () => {
    const value = { a: [1, 'two', { three: null }], b: true };
    expect(canonical(value)).toEqual(JSON.stringify(value));
  });
});
