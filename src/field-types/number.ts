import * as z from 'zod';
import { nullable } from './options.js';
import { ORDERED, type FieldTypeModule } from './field-type.js';
import { numberSample } from './samples.js';

/** A floating-point number (a double on both databases). */
export const number = {
  definition: {
    summary: 'a floating-point number',
    default: nullable(z.number()),
    options: {
      min: z.number().optional().describe('Smallest allowed value.'),
      max: z.number().optional().describe('Largest allowed value.'),
    },
  },
  column: { sqlite: () => 'REAL', postgres: () => 'DOUBLE PRECISION' },
  schema: (field) => ({
    type: 'number',
    ...(field.min !== undefined && { minimum: field.min }),
    ...(field.max !== undefined && { maximum: field.max }),
  }),
  tsType: () => 'number',
  decoder: () => ({ name: 'numeric' }),
  sample: (field, n) => numberSample(n, field),
  filtering: () => ({ kind: 'number', operators: ORDERED, value: { type: 'number' } }),
  widensTo: [],
  literal: { accepts: (value) => typeof value === 'number', expected: 'a number' },
} satisfies FieldTypeModule;
