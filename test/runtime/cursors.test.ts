import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SqlValue } from '../../runtime/src/db/database.js';
import { Cursors } from '../../runtime/src/http/cursors.js';

const KEY = Buffer.alloc(32, 7);

/** The problem `decode` throws, as the client sees it. */
function refusal(cursors: Cursors, cursor: string, sort = 'id', keys = 1, scope = ''): unknown {
  try {
    cursors.decode(cursor, sort, keys, scope);
  } catch (error) {
    return error;
  }
  return 'taken';
}

const refused = (message: string) => expect.objectContaining({ status: 400, errors: [{ path: '/cursor', message }] });
const forged = refused('is not a cursor this listing issued');

/** `cursor` with the character at `i` replaced by another of the base64url alphabet. */
const changedAt = (cursor: string, i: number): string =>
  `${cursor.slice(0, i)}${cursor[i] === 'A' ? 'B' : 'A'}${cursor.slice(i + 1)}`;

describe('Cursors', () => {
  it('takes back the sort keys of the cursors it issued, remembered or not', () => {
    const values = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.array(values, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('id', '-createdAt,id'),
        (v, sort) => {
          const issuer = new Cursors(KEY, 'posts');
          const cursor = issuer.encode(sort, v, '');
          // another instance with the same key has remembered nothing: it checks the HMAC and parses
          const fresh = new Cursors(KEY, 'posts');
          const expected = JSON.parse(JSON.stringify(v)) as SqlValue[];
          expect(issuer.decode(cursor, sort, v.length, '')).toEqual({ values: expected });
          expect(fresh.decode(cursor, sort, v.length, '')).toEqual({ values: expected });
          // issuing again gives the same cursor, from memory or not
          expect(issuer.encode(sort, v, '')).toBe(cursor);
          expect(fresh.encode(sort, v, '')).toBe(cursor);
        },
      ),
    );
  });

  it('gives the values a cursor holds, not the caller’s: -0 comes back 0, as through JSON', () => {
    const cursors = new Cursors(KEY, 'posts');
    const cursor = cursors.encode('views,id', [-0, 'a'], '');
    const position = cursors.decode(cursor, 'views,id', 2, '');
    expect('values' in position && Object.is(position.values[0], 0)).toBe(true);
  });

  it('refuses every cursor with one character changed, remembered or not', () => {
    const issuer = new Cursors(KEY, 'posts');
    const cursor = issuer.encode('id', ['01a2255d-3e0d-721b-967e-08d42cde6812'], '');
    const fresh = new Cursors(KEY, 'posts');
    for (let i = 0; i < cursor.length; i++) {
      if (cursor[i] === '.') continue;
      expect(refusal(issuer, changedAt(cursor, i)), `character ${i}`).toEqual(forged);
      expect(refusal(fresh, changedAt(cursor, i)), `character ${i}`).toEqual(forged);
    }
  });

  it.each([
    ['more after the signature', (c: string) => `${c}.x`],
    ['a longer signature', (c: string) => `${c}A`],
    ['a shorter signature', (c: string) => c.slice(0, -1)],
    ['no signature', (c: string) => c.slice(0, c.indexOf('.'))],
    ['nothing', () => ''],
  ])('refuses a cursor with %s', (_, change) => {
    const cursors = new Cursors(KEY, 'posts');
    const cursor = cursors.encode('id', ['a'], '');
    expect(refusal(cursors, change(cursor))).toEqual(forged);
  });

  it('refuses a cursor of another collection, another key or another sort', () => {
    const cursor = new Cursors(KEY, 'posts').encode('id', ['a'], '');
    expect(refusal(new Cursors(KEY, 'articles'), cursor)).toEqual(forged);
    expect(refusal(new Cursors(Buffer.alloc(32, 8), 'posts'), cursor)).toEqual(forged);
    const cursors = new Cursors(KEY, 'posts');
    const remembered = cursors.encode('id', ['a'], '');
    expect(refusal(cursors, remembered, 'title,id', 2)).toEqual(
      refused('belongs to another sort: start again without it'),
    );
    expect(refusal(cursors, remembered, 'id', 2)).toEqual(refused('belongs to another sort: start again without it'));
  });

  it('remembers at most 256 cursors, the oldest forgotten first, and still takes back those it forgot', () => {
    const cursors = new Cursors(KEY, 'posts');
    const issued = Array.from({ length: 1_000 }, (_, i) => cursors.encode('id', [`record-${i}`], ''));
    expect(cursors.remembered).toBe(256);
    expect(cursors.decode(issued[0] ?? '', 'id', 1, '')).toEqual({ values: ['record-0'] });
    expect(cursors.decode(issued[999] ?? '', 'id', 1, '')).toEqual({ values: ['record-999'] });
    // the newest are remembered: issuing one again does not grow the memory
    cursors.encode('id', ['record-999'], '');
    expect(cursors.remembered).toBe(256);
  });

  it('does not remember a cursor of long sort keys, and still takes it back', () => {
    const cursors = new Cursors(KEY, 'posts');
    const long = 'x'.repeat(300);
    const cursor = cursors.encode('title,id', [long, 'a'], '');
    expect(cursors.remembered).toBe(0);
    expect(cursors.decode(cursor, 'title,id', 2, '')).toEqual({ values: [long, 'a'] });
  });

  it('remembers within a scope: a cursor issued to one owner is checked in full when another takes it back', () => {
    const cursors = new Cursors(KEY, 'posts');
    const cursor = cursors.encode('id', ['a'], 'owner alice');
    expect(cursors.remembered).toBe(1);
    // the same page of another owner, or of an unrestricted listing, is another cursor in memory
    expect(cursors.encode('id', ['a'], 'owner bob')).toBe(cursor);
    expect(cursors.encode('id', ['a'], '')).toBe(cursor);
    expect(cursors.remembered).toBe(3);
    // taken back in any scope, it is the same cursor: memory changes the time, never the answer
    for (const scope of ['owner alice', 'owner bob', '', 'owner carol'])
      expect(cursors.decode(cursor, 'id', 1, scope)).toEqual({ values: ['a'] });
  });

  it('remembers nothing issued without a scope (an embedded page, continued on a route of its own)', () => {
    const cursors = new Cursors(KEY, 'posts');
    const cursor = cursors.encode('id', ['a'], null);
    expect(cursors.remembered).toBe(0);
    expect(cursors.decode(cursor, 'id', 1, '')).toEqual({ values: ['a'] });
  });

  it('names the record instead of holding sort keys too long for a URL, and takes that back', () => {
    const cursors = new Cursors(KEY, 'notes');
    const long = 'x'.repeat(600);
    const cursor = cursors.encode('body,id', [long, 'n-1'], '', 'n-1');
    expect(cursor.length).toBeLessThan(200);
    expect(cursors.decode(cursor, 'body,id', 2, '')).toEqual({ record: 'n-1' });
    expect(new Cursors(KEY, 'notes').decode(cursor, 'body,id', 2, '')).toEqual({ record: 'n-1' });
    // short keys are held as before; an integer id is named as one
    expect(cursors.decode(cursors.encode('body,id', ['short', 7], '', 7), 'body,id', 2, '')).toEqual({
      values: ['short', 7],
    });
    expect(cursors.decode(cursors.encode('body,id', [long, 7], '', 7), 'body,id', 2, '')).toEqual({ record: 7 });
    // signed alike: tampered, or taken to another sort or collection, it is refused
    expect(refusal(cursors, changedAt(cursor, 3), 'body,id', 2)).toEqual(forged);
    expect(refusal(cursors, cursor, 'title,id', 2)).toEqual(refused('belongs to another sort: start again without it'));
    expect(refusal(new Cursors(KEY, 'books'), cursor, 'body,id', 2)).toEqual(forged);
  });

  it('takes a cursor that names its record back only in the scope it was issued in (a reviewer)', () => {
    const cursors = new Cursors(KEY, 'notes');
    const cursor = cursors.encode('body,id', ['x'.repeat(600), 'n-1'], 'owner alice', 'n-1');
    expect(cursors.decode(cursor, 'body,id', 2, 'owner alice')).toEqual({ record: 'n-1' });
    const another = refused("belongs to another caller's listing: start again without it");
    expect(refusal(cursors, cursor, 'body,id', 2, 'owner bob')).toEqual(another);
    expect(refusal(cursors, cursor, 'body,id', 2, '')).toEqual(another);
  });
});
