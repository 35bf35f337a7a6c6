import fc from 'fast-check';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { now } from '../../runtime/src/db/codec.js';
import { utcTimestamp } from '../../runtime/src/db/timestamps.js';

const parse = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
/** what the server gave before utcTimestamp: pg's parser, then Date#toISOString */
const throughDate = (text: string): string => (parse(text) as Date).toISOString();

/** `microseconds` of `date` as PostgreSQL writes a timestamptz in UTC: trailing zeros of the fraction left out */
function written(date: Date, microseconds: number): string {
  const [day, time] = date.toISOString().slice(0, 19).split('T') as [string, string];
  const fraction = String(microseconds).padStart(6, '0').replace(/0+$/, '');
  return `${day} ${time}${fraction === '' ? '' : `.${fraction}`}+00`;
}

describe('utcTimestamp', () => {
  it.each([
    ['2026-11-27 04:22:37.414+00', '2026-11-27T04:22:37.414Z'],
    ['2026-11-27 04:22:37.41+00', '2026-11-27T04:22:37.410Z'],
    ['2026-11-27 04:22:37.4+00', '2026-11-27T04:22:37.400Z'],
    ['2026-11-27 04:22:37+00', '2026-11-27T04:22:37.000Z'],
    ['2026-11-27 04:22:37.414999+00', '2026-11-27T04:22:37.414Z'],
    ['0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31 23:59:59.999999+00', '9999-12-31T23:59:59.999Z'],
  ])('%s is %s, as through a Date', (text, iso) => {
    expect(utcTimestamp(text)).toBe(iso);
    expect(throughDate(text)).toBe(iso);
  });

  it.each([
    '2026-11-27 06:22:37.414+02',
    '2026-11-27 04:22:37.414+05:30',
    '10000-01-01 00:00:00+00',
    '0044-03-15 12:00:00+00 BC',
    'infinity',
    '-infinity',
    '2026-11-27T04:22:37.414+00',
    '27/11/2026 04:22:37.414 UTC',
  ])('%s is left to pg’s parser', (text) => {
    expect(utcTimestamp(text)).toBeUndefined();
  });

  it('gives what pg’s parser and a Date give, for any instant of years 1 to 9999 and any microseconds', () => {
    const instants = fc.date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 999_999 }), (date, microseconds) => {
        const whole = new Date(Math.floor(date.getTime() / 1000) * 1000);
        const text = written(whole, microseconds);
        expect(utcTimestamp(text)).toBe(throughDate(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('now', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is the clock as ISO 8601 in UTC, a new string each millisecond, also when the clock goes back', () => {
    vi.useFakeTimers();
    const times = [
      Date.UTC(2026, 11, 2, 6, 0, 0, 1),
      Date.UTC(2026, 11, 2, 6, 0, 0, 1),
      Date.UTC(2026, 11, 2, 6, 0, 0, 2),
      Date.UTC(2026, 11, 2, 6, 0, 0, 1),
      Date.UTC(2027, 0, 1, 0, 0, 0, 0),
    ];
    for (const time of times) {
      vi.setSystemTime(time);
      expect(now()).toBe(new Date(time).toISOString());
    }
  });
});
