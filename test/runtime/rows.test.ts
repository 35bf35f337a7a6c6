import { describe, expect, it } from 'vitest';
import { rowMaker } from '../../runtime/src/db/rows.js';

/** rowMaker (db/rows.ts): one function per column list, shared by the statements that return it, the last 500 kept. */
describe('rowMaker', () => {
  it('makes the object of the columns, in their order, a value left out as null', () => {
    const make = rowMaker(['id', 'the note', '1', 'n']);
    const row = make(['a', "it's", 2]);
    expect(row).toEqual({ id: 'a', 'the note': "it's", '1': 2, n: null });
    expect(Object.keys(make(['a', null, null, 0]))).toEqual(['1', 'id', 'the note', 'n']);
  });

  it('keeps the last value of a name given twice, as both drivers do', () => {
    expect(rowMaker(['v', 'v'])([1, 2])).toEqual({ v: 2 });
  });

  it('keeps a column named __proto__ a column of its own', () => {
    const row = rowMaker(['__proto__', 'constructor'])([1, 'c']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row)).toEqual([
      ['__proto__', 1],
      ['constructor', 'c'],
    ]);
  });

  it('writes no name as code: quotes, backslashes, template text and line separators stay text', () => {
    const names = ['a"b\\c d', '`${globalThis.x = 1}`', 'ü\u2028\u2029', "');throw 1;//"];
    const row = rowMaker(names)([1, 2, 3, 4]);
    expect(Object.keys(row)).toEqual(names);
    expect((globalThis as { x?: unknown }).x).toBeUndefined();
  });

  it('gives statements that return the same columns one function, and others another', () => {
    const columns = ['id', 'title', 'version'];
    expect(rowMaker([...columns])).toBe(rowMaker([...columns]));
    expect(rowMaker(['id', 'title'])).not.toBe(rowMaker(columns));
    // the list, not the names joined: ['a,b'] is not ['a', 'b']
    expect(rowMaker(['a,b'])).not.toBe(rowMaker(['a', 'b']));
  });

  it('keeps no function for a list of over 4 KB of names (SQLite names an expression by its text)', () => {
    const long = [`expression ${'x'.repeat(5000)}`];
    expect(rowMaker(long)).not.toBe(rowMaker(long));
    expect(rowMaker(long)(['v'])).toEqual({ [long[0] ?? '']: 'v' });
  });

  it('keeps the functions of the last 500 column lists only: the first ones are made again', () => {
    const first = rowMaker(['kept-first']);
    expect(rowMaker(['kept-first'])).toBe(first);
    for (let i = 0; i < 500; i += 1) rowMaker([`column-${i}`]);
    const again = rowMaker(['kept-first']);
    expect(again).not.toBe(first);
    expect(again(['x'])).toEqual(first(['x']));
  });
});
