import * as z from 'zod';
import { nullable } from './options.js';
import { ORDERED, type FieldTypeModule } from './field-type.js';
import { integerSample } from './samples.js';

/** A whole number, within what JavaScript holds exactly. */
export const integer = {
  definition: {
    summary: 'a whole number',
    default: nullable(z.int()),
    options: {
      min: z.int().optional().describe('Smallest allowed value.'),
      max: z.int().optional().describe('Largest allowed value.'),
    },
  },
  column: { sqlite: () => 'INTEGER', postgres: () => 'BIGINT' },
  // an integer column holds what JavaScript holds exactly; beyond it values would be rounded
  schema: (field) => ({
    type: 'integer',
    minimum: Math.max(field.min ?? -Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
    maximum: Math.min(field.max ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  }),
  tsType: () => 'number',
  decoder: () => ({ name: 'numeric' }),
  sample: (field, n) => integerSample(n, field),
  filtering: () => ({ kind: 'integer', operators: ORDERED, value: { type: 'integer' } }),
  widensTo: ['number'],
  literal: { accepts: (value) => Number.isInteger(value), expected: 'an integer' },
} satisfies FieldTypeModule;
