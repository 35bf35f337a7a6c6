import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../../src/definition/did-you-mean.js';
import { parseDuration, parseSize } from '../../../src/definition/units.js';

const TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'date', 'datetime', 'uuid', 'enum', 'json', 'ref'];

describe('editDistance', () => {
  it.each([
    ['string', 'string', 0],
    ['strng', 'string', 1],
    ['requried', 'required', 1], // a transposition is one edit
    ['titel', 'title', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('%s → %s: %i', (a, b, want) => expect(editDistance(a, b)).toBe(want));
});

describe('closest', () => {
  it.each([
    ['strng', TYPES, 'string'],
    ['String', TYPES, 'string'],
    ['int', TYPES, 'integer'],
    ['bool', TYPES, 'boolean'],
    ['datetme', TYPES, 'datetime'],
    ['blob', TYPES, undefined],
    ['x', TYPES, undefined],
    ['edtor', ['admin', 'editor'], 'editor'],
    ['user', ['users', 'posts'], 'users'],
    ['fileds', ['id', 'owner', 'fields', 'access'], 'fields'],
  ])('%s → %s', (written, candidates, want) => expect(closest(written, candidates)).toBe(want));
});

describe('units', () => {
  it.each([
    ['1mb', 1048576],
    ['1kb', 1024],
    ['512kb', 524288],
    ['1.5MB', 1572864],
    ['100b', 100],
    ['2 gb', 2147483648],
    [4096, 4096],
    ['1 megabyte', undefined],
  ])('parseSize(%s) = %s', (given, want) => expect(parseSize(given)).toBe(want));

  it.each([
    ['1m', 60000],
    ['30s', 30000],
    ['1h', 3600000],
    ['500ms', 500],
    ['1d', 86400000],
    ['1 minute', undefined],
  ])('parseDuration(%s) = %s', (given, want) => expect(parseDuration(given)).toBe(want));
});
