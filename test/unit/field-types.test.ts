import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { FIELD_TYPE } from '../../src/field-types/index.js';
import { FIELD_TYPES, type Field, type FieldType } from '../../src/model.js';
import { field } from '../helpers/model.js';

// ajv-formats' CommonJS default export, as NodeNext types it
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: true, allowUnionTypes: true }));
// a json field's depth bound, checked by the generated server's validator (http/validator.ts)
ajv.addKeyword({ keyword: 'maxDepth', schemaType: 'number' });

/** What each type is, one row a type: its columns, TypeScript type, codec and listing operators. */
const GIVEN_WANT: [FieldType, Partial<Field>, string, string, string, string, string | undefined, string][] = [
  // type, options, SQLite column, PostgreSQL column, TS type, decoder, encoder, operators
  ['string', {}, 'TEXT', 'TEXT COLLATE "C"', 'string', 'text', undefined, 'eq ne gt gte lt lte in contains'],
  ['text', {}, 'TEXT', 'TEXT COLLATE "C"', 'string', 'text', undefined, 'eq ne gt gte lt lte in contains'],
  ['integer', {}, 'INTEGER', 'BIGINT', 'number', 'numeric', undefined, 'eq ne gt gte lt lte in'],
  ['number', {}, 'REAL', 'DOUBLE PRECISION', 'number', 'numeric', undefined, 'eq ne gt gte lt lte in'],
  ['boolean', {}, 'INTEGER', 'BOOLEAN', 'boolean', 'flag', 'toFlag', 'eq ne'],
  ['date', {}, 'TEXT', 'TEXT COLLATE "C"', 'string', 'text', undefined, 'eq ne gt gte lt lte in'],
  ['datetime', {}, 'TEXT', 'TIMESTAMPTZ', 'string', 'text', 'toUtc', 'eq ne gt gte lt lte in'],
  ['uuid', {}, 'TEXT', 'TEXT COLLATE "C"', 'string', 'text', undefined, 'eq ne in'],
  ['enum', { values: ['a', 'b'] }, 'TEXT', 'TEXT COLLATE "C"', "'a' | 'b'", 'member', undefined, 'eq ne in'],
  ['json', {}, 'TEXT', 'JSONB', 'JsonValue', 'json', 'toJson', ''],
  ['ref', {}, 'TEXT', 'TEXT COLLATE "C"', 'string', 'text', undefined, 'eq ne in'],
];

const quoted = (text: string): string => `'${text}'`;

describe.each(GIVEN_WANT)('%s', (type, options, sqlite, postgres, ts, decoder, encoder, operators) => {
  const module = FIELD_TYPE[type];
  const f = field('value', type, options);

  it('has its column type in each dialect', () => {
    expect([module.column.sqlite('uuid'), module.column.postgres('uuid')]).toEqual([sqlite, postgres]);
  });

  it('has its TypeScript type and codec', () => {
    expect(module.tsType(f, 'uuid', quoted)).toBe(ts);
    expect(module.decoder(f, 'uuid').name).toBe(decoder);
    expect(module.encoder).toBe(encoder);
  });

  it('has its listing operators', () => {
    expect(module.filtering(f, 'uuid')?.operators.join(' ') ?? '').toBe(operators);
  });
});

it('covers every type of the model', () => {
  expect(GIVEN_WANT.map(([type]) => type).sort()).toEqual([...FIELD_TYPES].sort());
});

it('makes a ref take the kind of its target’s ids', () => {
  const ref = FIELD_TYPE.ref;
  const f = field('authorId', 'ref');
  expect([ref.column.sqlite('integer'), ref.column.postgres('integer')]).toEqual(['INTEGER', 'BIGINT']);
  expect(ref.tsType(f, 'integer', quoted)).toBe('number');
  expect(ref.schema(f, 'integer')).toEqual({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
  expect(ref.filtering(f, 'integer')?.kind).toBe('integer');
});

it('widens only where every stored value is kept', () => {
  const widenings = Object.fromEntries(FIELD_TYPES.map((type) => [type, FIELD_TYPE[type].widensTo.join(' ')]));
  expect(widenings).toEqual({
    string: 'text',
    text: 'string',
    integer: 'number',
    number: '',
    boolean: '',
    date: 'string text',
    datetime: 'string text',
    uuid: 'string text',
    enum: 'string text',
    json: '',
    ref: '',
  });
});

/** Fields of each type with the options that bound their values, for the samples below. */
const CONSTRAINED: Field[] = [
  field('name', 'string'),
  field('code', 'string', { minLength: 4, maxLength: 6 }),
  field('sku', 'string', { pattern: '[A-Z]{3}-[0-9]{2}' }),
  field('email', 'string', { format: 'email' }),
  field('site', 'string', { format: 'url' }),
  field('body', 'text', { maxLength: 12 }),
  field('count', 'integer', { min: 3, max: 5 }),
  field('views', 'integer'),
  field('ratio', 'number', { min: 0, max: 1 }),
  field('flag', 'boolean'),
  field('day', 'date'),
  field('at', 'datetime'),
  field('key', 'uuid'),
  field('mood', 'enum', { values: ['calm', 'busy'] }),
  field('extra', 'json'),
];

describe.each(CONSTRAINED.map((f) => [`${f.type} ${f.name}`, f] as const))('samples of %s', (_, f) => {
  const module = FIELD_TYPE[f.type];
  const validate = ajv.compile(module.schema(f, 'uuid'));
  const samples = Array.from({ length: 40 }, (__, n) => module.sample(f, n));

  it('are valid under the type’s own schema, and literals the definition may hold', () => {
    for (const sample of samples) {
      expect(validate(sample), `${JSON.stringify(sample)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(module.literal?.accepts(sample) ?? true).toBe(true);
    }
  });

  it('differ from each other, where the options leave room', () => {
    const distinct = new Set(samples.map((sample) => JSON.stringify(sample))).size;
    expect(distinct).toBeGreaterThanOrEqual(f.type === 'boolean' ? 2 : f.values !== undefined ? 2 : 3);
  });
});

it('refuses literals of another type', () => {
  const refused: [FieldType, unknown][] = [
    ['string', 1],
    ['integer', 1.5],
    ['number', '1'],
    ['boolean', 'true'],
    ['date', '2026-02-30'],
    ['datetime', '2026-01-01T24:00:00Z'],
    ['uuid', 'not-a-uuid'],
  ];
  expect(refused.filter(([type, value]) => FIELD_TYPE[type].literal?.accepts(value) !== false)).toEqual([]);
});
