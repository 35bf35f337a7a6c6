import { describe, expect, it } from 'vitest';
import { anotherRunExpected, expectAnotherRun, LastRun, oncePerPair } from '../../src/memo.js';

describe('oncePerPair', () => {
  it('computes once for each pair, an undefined answer included, and passes the arguments after the pair', () => {
    const calls: string[] = [];
    const of = oncePerPair((a: { n: string }, b: { m: string }, extra: string) => {
      calls.push(`${a.n}${b.m}${extra}`);
      return a.n === 'x' ? undefined : `${a.n}${b.m}`;
    });
    const [a, b, c, x] = [{ n: 'a' }, { m: 'b' }, { m: 'c' }, { n: 'x' }];
    expect([of(a, b, '1'), of(a, b, '2'), of(a, c, '3'), of(x, b, '4'), of(x, b, '5')]).toEqual([
      'ab',
      'ab',
      'ac',
      undefined,
      undefined,
    ]);
    expect(calls).toEqual(['ab1', 'ac3', 'xb4']);
  });
});

/** Given the runs of a process, want what each made: a value is made again exactly when its key changed. */
describe('LastRun', () => {
  const runs = (memo: LastRun<string>, keys: Record<string, string>[]): string[] => {
    const made: string[] = [];
    for (const run of keys) {
      for (const [name, key] of Object.entries(run))
        memo.of(
          name,
          () => key,
          () => (made.push(`${name}@${key}`), key),
        );
      memo.keep(new Set(Object.keys(run)));
    }
    return made;
  };

  // in this order: the flag is the process's
  it('keeps nothing while no other run is expected: a single generate', () => {
    expect(anotherRunExpected()).toBe(false);
    expect(runs(new LastRun(), [{ a: '1' }, { a: '1' }])).toEqual(['a@1', 'a@1']);
  });

  it.each<[string, Record<string, string>[], string[]]>([
    ['the same key: made once', [{ a: '1' }, { a: '1' }], ['a@1']],
    [
      'a key changed: made again',
      [
        { a: '1', b: '1' },
        { a: '2', b: '1' },
      ],
      ['a@1', 'b@1', 'a@2'],
    ],
    ['a name left out of a run is forgotten', [{ a: '1' }, { b: '1' }, { a: '1' }], ['a@1', 'b@1', 'a@1']],
    [
      'back to an older key: made again (one entry a name)',
      [{ a: '1' }, { a: '2' }, { a: '1' }],
      ['a@1', 'a@2', 'a@1'],
    ],
  ])('under --watch, %s', (_, keys, want) => {
    expectAnotherRun();
    expect(runs(new LastRun(), keys)).toEqual(want);
  });
});
