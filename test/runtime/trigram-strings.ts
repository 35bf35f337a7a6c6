import fc from 'fast-check';

/**
 * Texts and values for the property tests of `contains` served by a trigram index (SQLite and PostgreSQL): ASCII
 * letters in both cases, letters whose case folding is not ASCII's (é É ß ẞ İ ı, the Kelvin sign), diacritics, LIKE's
 * and FTS5's special characters, quotes, backslashes, a character outside the BMP.
 */
const ALPHABET = [
  'a',
  'A',
  'b',
  'B',
  'c',
  'C',
  'é',
  'É',
  'e',
  'ß',
  'ẞ',
  'İ',
  'ı',
  'i',
  '\u212a',
  'k',
  '%',
  '_',
  '"',
  "'",
  '\\',
  ' ',
  '*',
  '😀',
];

const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...ALPHABET), { minLength: min, maxLength: max }).map((chars) => chars.join(''));

/** 300 texts, the same every run. */
export const TEXTS: readonly string[] = fc.sample(text(0, 14), { seed: 57, numRuns: 300 });

const flipCase = (s: string, flips: readonly boolean[]): string =>
  [...s]
    .map((c, i) => (flips[i % flips.length] === true ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c))
    .join('');

/** A value: random, or a piece of one of TEXTS with some letters in the other case (so that many match). */
export const NEEDLES: fc.Arbitrary<string> = fc.oneof(
  text(1, 5),
  fc
    .tuple(
      fc.constantFrom(...TEXTS.filter((t) => [...t].length >= 3)),
      fc.nat(),
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
    )
    .map(([t, start, length, flips]) => {
      const chars = [...t];
      const from = start % chars.length;
      return flipCase(chars.slice(from, from + length).join(''), flips);
    })
    .filter((s) => s.length > 0),
);
