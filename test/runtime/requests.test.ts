import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { readTrustProxy, ConfigError } from '../../runtime/src/config.js';
import { originOf } from '../../runtime/src/http/docs.js';
import { etagOf, isFresh } from '../../runtime/src/http/etag.js';
import { matchesIfMatch, parseIfMatch } from '../../runtime/src/http/preconditions.js';
import { HttpProblem } from '../../runtime/src/http/problem.js';
import { windowInWords } from '../../runtime/src/http/rate-limit.js';

/** The runtime's small decisions about a request, tested here without generating a project. */
describe('If-Match', () => {
  it.each([
    [undefined, null],
    ['*', '*'],
    [' * ', '*'],
    ['"3"', [3]],
    ['"3", "4"', [3, 4]],
    // weak tags never match (If-Match compares strongly); a tag no version can have matches nothing
    ['W/"3"', []],
    ['"99999999999999999999"', []],
    ['"abc"', []],
  ])('given %j, asks %j', (header, want) => {
    expect(parseIfMatch(header)).toEqual(want);
  });

  it.each(['3', '"3', 'W/3', '"a"b"', '"3",,"4"'])('given %j, is a 400 that says what an ETag looks like', (header) => {
    expect(() => parseIfMatch(header)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it.each([
    [undefined, true],
    ['*', true],
    ['"3"', true],
    ['"2", "3"', true],
    ['"2"', false],
    ['W/"3"', false],
  ])('given %j, matches a record at version 3: %j (what a handler action runs on)', (header, want) => {
    expect(matchesIfMatch(parseIfMatch(header), 3)).toBe(want);
  });
});

describe('If-None-Match', () => {
  it.each([
    [undefined, false],
    ['"2"', true],
    ['"1", "2"', true],
    ['W/"2"', true],
    ['*', true],
    ['"3"', false],
  ])('given %j for the version 2, is fresh: %s', (header, want) => {
    expect(isFresh(header, etagOf(2))).toBe(want);
  });
});

describe('the origin the served OpenAPI document names', () => {
  it.each([
    ['http', 'api.example.com', 'http://api.example.com'],
    ['https', 'api.example.com:8443', 'https://api.example.com:8443'],
    ['http', '[::1]:3000', 'http://[::1]:3000'],
    ['http', '127.0.0.1', 'http://127.0.0.1'],
    // what a client or a proxy could forge is not echoed
    ['https://evil.example/#', 'api.example.com', undefined],
    ['javascript', 'x', undefined],
    ['http', 'example.com:0', undefined],
    ['http', 'example.com:99999', undefined],
    ['http', 'user@example.com', undefined],
    ['http', 'example.com/path', undefined],
    ['http', '"><script>', undefined],
    ['http', `${'a'.repeat(300)}.com`, undefined],
  ])('given %j and Host %j, is %j', (protocol, host, want) => {
    expect(originOf(protocol, host)).toBe(want);
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8,127.0.0.1'],
    ['fd00::/8,::1', 'fd00::/8,::1'],
    ['loopback', 'loopback'],
  ])('given %j, trusts %j', (value, want) => {
    expect(readTrustProxy(value)).toBe(want);
  });

  it.each(['true', '2', '10.0.0.0/8, 127.0.0.1', 'fd00::/8,::1', 'loopback,uniquelocal'])(
    'given %j, is an option Fastify takes',
    async (value) => {
      const app = Fastify({ trustProxy: readTrustProxy(value) });
      await app.ready();
      await app.close();
    },
  );

  it('given a number of hops, trusts that many', () => {
    const trust = readTrustProxy('2') as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => trust('10.0.0.1', hop))).toEqual([true, true, false]);
  });

  // each of these Fastify would refuse with a TypeError once the server is built
  it.each([
    'yes',
    'proxy.example.com',
    '10.0.0.1;rm',
    'abc',
    'fe',
    '999.1.1.1',
    '1.2.3.4/99',
    '::1/129',
    '10.0.0.0/8/8',
  ])('given %j, is a configuration error', (value) => {
    expect(() => readTrustProxy(value)).toThrow(ConfigError);
  });
});

describe('problem documents', () => {
  it('carry type, title, status and detail, and errors only when there are some', () => {
    expect(new HttpProblem(404, 'Not Found', 'no such post').toDocument()).toEqual({
      type: '/api/v1/problems/not-found',
      title: 'Not Found',
      status: 404,
      detail: 'no such post',
    });
    const errors = [{ path: '/title', message: 'is required' }];
    expect(new HttpProblem(400, 'Bad Request', 'the body is not valid', errors).toDocument().errors).toEqual(errors);
  });
});

describe('the rate-limit window in words', () => {
  it.each([
    [60_000, 'per minute'],
    [900_000, 'per 15 minutes'],
    [86_400_000, 'per day'],
    [30_000, 'per 30 seconds'],
    [1_500, 'per 1500 milliseconds'],
  ])('given %i ms, says %j', (ms, want) => {
    expect(windowInWords(ms)).toBe(want);
  });
});
