/**
 * A `timestamptz` as PostgreSQL writes it in UTC (DateStyle ISO, TimeZone UTC: `2026-11-27 04:22:37.41+00`, the
 * fraction's trailing zeros left out, none when zero) made ISO 8601 with milliseconds (`2026-11-27T04:22:37.410Z`)
 * by slicing: what pg's parser and `Date#toISOString` give, at a fraction of the cost (a listing reads two a row).
 * Undefined for any other text (another time zone, a year past 9999, BC, infinity): that takes pg's parser.
 */
export function utcTimestamp(text: string): string | undefined {
  const { length } = text;
  if (length < 22 || length > 29 || !text.endsWith('+00')) return undefined;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':')
    return undefined;
  const fraction = text.slice(19, length - 3);
  if (fraction !== '' && fraction[0] !== '.') return undefined;
  // milliseconds are the first three digits of the fraction (pg's parser truncates the rest too)
  return `${text.slice(0, 10)}T${text.slice(11, 19)}${`${fraction === '' ? '.' : fraction}000`.slice(0, 4)}Z`;
}
