import { describe, expect, it } from 'vitest';
import { oncePerPair } from '../../src/memo.js';

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
