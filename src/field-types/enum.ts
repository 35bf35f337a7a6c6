import * as z from 'zod';
import { nullable, uniqueStrings } from './options.js';
import { EQUALITY, TEXT_COLUMN, type FieldTypeModule } from './field-type.js';

/** One of a list of strings (`values`), stored as the string; a literal outside the list is its option's problem. */
export const enumType = {
  definition: {
    summary: 'one of a list of strings',
    default: nullable(z.string()),
    options: {
      values: z.array(z.string().min(1)).min(1).superRefine(uniqueStrings).describe('The allowed values.'),
    },
  },
  column: TEXT_COLUMN,
  schema: (field) => ({ type: 'string', enum: field.values ?? [] }),
  tsType: (field, _, literal) => (field.values ?? []).map(literal).join(' | '),
  decoder: (field) => ({ name: 'member', args: field.values ?? [] }),
  sample: (field, n) => field.values?.[n % field.values.length] ?? null,
  filtering: (field) => ({ kind: 'text', operators: EQUALITY, value: { type: 'string', enum: field.values ?? [] } }),
  widensTo: ['string', 'text'],
} satisfies FieldTypeModule;
