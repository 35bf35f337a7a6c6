import { describe, expect, it } from 'vitest';
import { Remembered } from '../../src/pipeline/remembered.js';

/** a digest that counts how often it runs */
function counted(): { digest: (text: string) => string; runs: string[] } {
  const runs: string[] = [];
  return { runs, digest: (text) => (runs.push(text), `#${text.length}:${text}`) };
}

describe('Remembered', () => {
  it('digests a path’s text once while it stays the same, even as another string of equal text', () => {
    const { digest, runs } = counted();
    const remembered = new Remembered(digest);
    expect(remembered.of('a.ts', 'one')).toBe('#3:one');
    expect(remembered.of('a.ts', ['o', 'n', 'e'].join(''))).toBe('#3:one');
    expect(runs).toEqual(['one']);
  });

  it('digests again when the text of a path changes, and never gives a digest of another text', () => {
    const { digest, runs } = counted();
    const remembered = new Remembered(digest);
    remembered.of('a.ts', 'one');
    expect(remembered.of('a.ts', 'two')).toBe('#3:two');
    expect(remembered.of('a.ts', 'one')).toBe('#3:one');
    expect(remembered.of('b.ts', 'one')).toBe('#3:one');
    expect(runs).toEqual(['one', 'two', 'one', 'one']);
  });
});
