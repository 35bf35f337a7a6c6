import fc, { type Arbitrary } from 'fast-check';

/** The part of JSON Schema (as the OpenAPI documents of generated projects use it) that the fuzzer understands. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const INT32 = 2 ** 31 - 1;

/**
 * Any JSON value, small: what a `json` field accepts. Keys `__proto__` and `constructor` are left out: servers
 * refuse bodies with them (Fastify's prototype-poisoning guard); the adversarial values send them.
 */
export const anyJson: Arbitrary<Json> = (fc.jsonValue({ maxDepth: 2 }) as Arbitrary<Json>).filter(
  (value) => !/"(__proto__|constructor)":/.test(JSON.stringify(value)),
);

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * RFC 3339 date-times over the range the API takes (UTC years 1 to 9999, as its README says), with and without
 * fractions and offsets: years 2 to 9998, so that no offset moves one out of it.
 */
const dateTime: Arbitrary<string> = fc
  .record({
    year: fc.oneof(fc.integer({ min: 2, max: 9998 }), fc.constantFrom(2, 1969, 1970, 9998)),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.constantFrom('', '.5', '.123', '.123456'),
    offset: fc.constantFrom('Z', 'z', '+00:00', '-00:00', '+01:00', '-05:30', '+14:00', '-12:00', '+23:59', '-23:59'),
  })
  .map(
    ({ year, month, day, hour, minute, second, fraction, offset }) =>
      `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${fraction}${offset}`,
  );

/** A string, now and then with a lone surrogate: a server must store it as sent or refuse it with a 400. */
const anyString = (minLength: number, maxLength: number): Arbitrary<string> =>
  fc.oneof(
    { weight: 9, arbitrary: fc.string({ unit: 'binary', minLength, maxLength }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: Math.max(0, maxLength - 1) }), fc.constantFrom('\ud800', '\udfff', '\ud83d'))
        .map(([text, half]) => [...text, half].slice(-Math.max(1, maxLength)).join('').padEnd(minLength, 'x')),
    },
  );

function stringOf(schema: Schema): Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, minLength + 40);
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.stringMatching(/^[a-z0-9]{1,12}@[a-z]{1,8}\.(com|org|dev)$/);
    case 'uri':
    case 'url':
      return fc.stringMatching(/^https:\/\/[a-z]{1,10}\.example\/[a-z0-9]{0,10}$/);
    case 'date':
      return fc
        .date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return dateTime;
  }
  if (schema.pattern !== undefined) {
    return fc
      .stringMatching(new RegExp(schema.pattern, 'u'))
      .filter((s) => [...s].length >= minLength && [...s].length <= (schema.maxLength ?? Infinity));
  }
  // every code point, NUL and astral ones included: lengths count code points, as JSON Schema does
  return anyString(minLength, maxLength);
}

function integerOf(schema: Schema): Arbitrary<number> {
  const min = schema.minimum ?? Number.MIN_SAFE_INTEGER;
  const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
  const small = fc.integer({ min: Math.max(min, -INT32), max: Math.min(max, INT32) });
  return fc.oneof({ weight: 4, arbitrary: small }, fc.constantFrom(min, max));
}

function objectOf(schema: Schema, optional: boolean): Arbitrary<Record<string, Json>> {
  const properties = schema.properties ?? {};
  const required = optional ? [] : (schema.required ?? []);
  const record: Record<string, Arbitrary<Json>> = {};
  for (const [name, property] of Object.entries(properties)) record[name] = valid(property);
  return fc.record(record, { requiredKeys: required }) as Arbitrary<Record<string, Json>>;
}

/**
 * Values that `schema` accepts (refs must be resolved first: see `resolve`). `optional` drops every `required`
 * of the top-level object (PATCH bodies).
 */
export function valid(schema: Schema, optional = false): Arbitrary<Json> {
  if (schema.enum !== undefined) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map((one) => valid(one)));
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 0) return anyJson;
  const arbitraries = types.map((type): Arbitrary<Json> => {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return integerOf(schema);
      case 'number':
        return fc.double({
          min: schema.minimum ?? -1e300,
          max: schema.maximum ?? 1e300,
          noNaN: true,
          noDefaultInfinity: true,
        });
      case 'string':
        return stringOf(schema);
      case 'array':
        return fc.array(schema.items === undefined ? anyJson : valid(schema.items), { maxLength: 4 });
      case 'object':
        return objectOf(schema, optional);
      default:
        throw new Error(`the fuzzer does not know the type ${type}`);
    }
  });
  return arbitraries.length === 1 ? arbitraries[0]! : fc.oneof(...arbitraries);
}

/** A deeply nested array, as JSON text: parsers and validators must not overflow the stack on it. */
const deep = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** Values no schema of a generated project should choke on: wrong types, extremes, odd unicode, odd keys. */
export const adversarialValue: Arbitrary<Json | { raw: string }> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    2 ** 53 + 1,
    -(2 ** 63),
    1e-320,
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\udfff x',
    'a\ud83d',
    '\u{1F600}',
    '\u202e',
    '0',
    '-0',
    'NaN',
    'null',
    '1e999',
    '9'.repeat(400),
    'x'.repeat(5000),
    '2026-02-30',
    '2026-13-01',
    '+275760-09-13T00:00:00.000Z',
    '9999-12-31T23:59:60Z',
    '0000-00-00T00:00:00Z',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-fffffffffffff',
    "'; DROP TABLE x; --",
    '%00',
    '../../etc/passwd',
    [],
    [null],
    {},
    { a: { b: { c: {} } } },
  ),
  fc.constantFrom<{ raw: string }>(
    { raw: '{"__proto__":{"admin":true}}' },
    { raw: '{"constructor":{"prototype":{"x":1}}}' },
    { raw: deep(2000) },
    { raw: '1e999999' },
    { raw: '"\\ud800"' },
    { raw: `"${'x'.repeat(1_100_000)}"` },
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.double(),
  fc.integer(),
);
