import { describe, expect, it } from 'vitest';
import { setBounded } from '../../runtime/src/bounded.js';

describe('setBounded', () => {
  it('keeps at most max entries, dropping the oldest first', () => {
    const map = new Map<string, number>();
    for (let i = 0; i < 5; i += 1) setBounded(map, `k${i}`, i, 3);
    expect([...map]).toEqual([
      ['k2', 2],
      ['k3', 3],
      ['k4', 4],
    ]);
  });

  it('replaces a key it holds without dropping another', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    setBounded(map, 'a', 10, 2);
    expect([...map]).toEqual([
      ['a', 10],
      ['b', 2],
    ]);
    setBounded(map, 'c', 3, 2);
    expect([...map]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
  });
});
