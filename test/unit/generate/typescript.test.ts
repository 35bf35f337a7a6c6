import { describe, expect, it } from 'vitest';
import { inputFieldSchema, inputSchema, outputFieldSchema, patchSchema } from '../../../src/contract/json-schemas.js';
import { decodeExpression, encodeExpression, inputType, outputType } from '../../../src/generate/typescript.js';
import { sampleValue } from '../../../src/contract/samples.js';
import { api, field, resource } from '../../helpers/model.js';

const model = api([resource('users', []), resource('tasks', [], { id: 'integer' })]);

describe('types of fields', () => {
  it.each([
    [field('title', 'string', { required: true }), 'string', 'string'],
    [field('body', 'text'), 'string | null', 'string'],
    [field('rating', 'number', { nullable: true }), 'number | null', 'number | null'],
    // string literals as prettier prints them (single quotes unless the value has more of those)
    [field('status', 'enum', { values: ['a', 'b"c'], default: 'a' }), `'a' | 'b"c'`, `'a' | 'b"c'`],
    [field('status', 'enum', { values: ["it's", 'x'], default: 'x' }), `"it's" | 'x'`, `"it's" | 'x'`],
    [field('meta', 'json'), 'JsonValue | null', 'JsonValue'],
    [
      field('taskId', 'ref', { required: true, ref: { to: 'tasks', onDelete: 'restrict', as: 'x', inverse: 'y' } }),
      'number',
      'number',
    ],
  ])('$0.name → output %s, input %s', (given, output, input) => {
    expect(outputType(model, given)).toBe(output);
    expect(inputType(model, given)).toBe(input);
  });
});

describe('row decoding and encoding', () => {
  it.each([
    [field('title', 'string', { required: true }), 'text(row.title)', 'input.title'],
    [field('body', 'text'), 'orNull(row.body, text)', 'input.body ?? null'],
    [
      field('featured', 'boolean', { default: false }),
      'flag(row.featured)',
      'toFlag(orDefault(input.featured, false))',
    ],
    [field('meta', 'json'), 'orNull(row.meta, json)', 'toJson(input.meta ?? null)'],
    [field('dueAt', 'datetime'), 'orNull(row.due_at, text)', 'toUtc(input.dueAt ?? null)'],
    [
      field('status', 'enum', { values: ['a', 'b'], nullable: true }),
      "orNull(row.status, (value) => member(value, ['a', 'b'] as const))",
      'input.status ?? null',
    ],
  ])('%o', (given, decode, encode) => {
    expect(decodeExpression(model, given).text).toBe(decode);
    expect(encodeExpression(given, 'input').text).toBe(encode);
  });
});

describe('JSON Schemas of fields', () => {
  it.each([
    [
      field('title', 'string', { minLength: 1, maxLength: 5 }),
      { type: 'string', minLength: 1, maxLength: 5 },
      { type: ['string', 'null'] },
    ],
    [
      field('site', 'string', { format: 'url', required: true }),
      { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$', format: 'uri' },
      { type: 'string', format: 'uri' },
    ],
    [
      // the whole value must match: a pattern is anchored wherever it is checked
      field('code', 'string', { pattern: '[a-z0-9_]{3,16}' }),
      { type: 'string', pattern: '^(?:[a-z0-9_]{3,16})$' },
      { type: ['string', 'null'] },
    ],
    [
      field('n', 'integer', { min: 0, default: 3 }),
      { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 3 },
      { type: 'integer' },
    ],
    [
      field('s', 'enum', { values: ['x'], nullable: true, description: 'the state' }),
      { description: 'the state', type: ['string', 'null'], enum: ['x', null] },
      { description: 'the state', type: ['string', 'null'], enum: ['x', null] },
    ],
    [field('when', 'date', { required: true }), { type: 'string', format: 'date' }, { type: 'string', format: 'date' }],
    // null in a request only where the definition allows it (PATCH: see patchSchema)
    [field('meta', 'json'), { type: ['object', 'array', 'string', 'number', 'boolean'], maxDepth: 32 }, {}],
    [field('meta', 'json', { nullable: true }), { maxDepth: 32 }, {}],
  ])('%o', (given, input, output) => {
    expect(inputFieldSchema(model, given)).toEqual(input);
    expect(outputFieldSchema(model, given)).toEqual(output);
  });
});

describe('null for a json field', () => {
  // a POST or PUT sends null only where the definition allows it; a PATCH also to reset an optional field
  const notes = resource('notes', [
    field('meta', 'json', { default: { a: 1 } }),
    field('spec', 'json', { required: true }),
    field('extra', 'json', { nullable: true }),
  ]);
  const takesNull = (schema: Record<string, unknown>, name: string): boolean => {
    const property = (schema.properties as Record<string, { type?: string[] }>)[name];
    return property?.type === undefined || property.type.includes('null');
  };
  it.each([
    ['meta', false, true],
    ['spec', false, false],
    ['extra', true, true],
  ])('%s: POST and PUT %s, PATCH %s', (name, input, patch) => {
    expect(takesNull(inputSchema(model, notes), name)).toBe(input);
    expect(takesNull(patchSchema(model, notes), name)).toBe(patch);
  });
});

describe('sample values for generated tests', () => {
  it.each([
    [
      field('title', 'string', { minLength: 30, maxLength: 40 }),
      (v: unknown) => typeof v === 'string' && v.length === 30,
    ],
    [field('code', 'string', { maxLength: 3 }), (v: unknown) => v === 'Sa1'],
    [field('n', 'integer', { min: 5, max: 9 }), (v: unknown) => v === 6],
    [field('x', 'number', { max: 1 }), (v: unknown) => v === -0.5],
    [field('s', 'enum', { values: ['a', 'b'] }), (v: unknown) => v === 'b'],
    [
      field('p', 'string', { pattern: '^[A-Z][A-Z0-9]{1,9}$' }),
      (v: unknown) => typeof v === 'string' && /^[A-Z][A-Z0-9]{1,9}$/.test(v),
    ],
    [
      field('q', 'string', { pattern: '^a+$', minLength: 3, maxLength: 4 }),
      (v: unknown) => typeof v === 'string' && /^a{3,4}$/.test(v),
    ],
    [field('r', 'string', { pattern: 'ab', minLength: 3 }), (v: unknown) => v === undefined],
    [field('s', 'string', { pattern: '[a-z]{3}' }), (v: unknown) => typeof v === 'string' && /^[a-z]{3}$/.test(v)],
  ])('%o', (given, valid) => expect(valid(sampleValue(given, 1))).toBe(true));

  // the generated tests create two records: a unique field needs two different valid values
  it.each([
    field('code', 'string', { maxLength: 3 }),
    field('t', 'text', { maxLength: 10 }),
    field('n', 'integer', { min: 10 }),
    field('m', 'integer', { max: -10 }),
    field('r', 'integer', { min: 5, max: 9 }),
    field('x', 'number', { min: 0, max: 1 }),
    field('y', 'number', { min: 10 }),
    field('z', 'number', { max: -10 }),
  ])('gives %o two different values', (given) => {
    expect(sampleValue(given, 1)).not.toEqual(sampleValue(given, 2));
  });
});
