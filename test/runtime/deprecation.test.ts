import { describe, expect, it } from 'vitest';
import { deprecationHeaders, type Deprecation } from '../../runtime/src/http/deprecation.js';

/** The headers of a deprecated resource's or action's responses: RFC 9745's date, RFC 8594's, the link's. */
describe('deprecationHeaders', () => {
  it.each<[Deprecation, Record<string, string>]>([
    [{ since: '2026-11-01' }, { deprecation: '@1793491200' }],
    [
      { since: '1970-01-02', sunset: '2027-06-30', link: 'https://example.com/v2' },
      {
        deprecation: '@86400',
        sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
        link: '<https://example.com/v2>; rel="deprecation"; type="text/html"',
      },
    ],
    // nothing in the URL can end the link early or break the header: it is percent-encoded
    [
      { since: '2026-11-01', link: 'https://example.com/a>b"c d?é' },
      {
        deprecation: '@1793491200',
        link: '<https://example.com/a%3Eb%22c%20d?%C3%A9>; rel="deprecation"; type="text/html"',
      },
    ],
  ])('%j', (given, want) => {
    expect(deprecationHeaders(given)).toEqual(want);
  });
});
