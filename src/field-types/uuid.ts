import * as z from 'zod';
import { nullable } from './options.js';
import { EQUALITY, TEXT_COLUMN, type FieldTypeModule } from './field-type.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID, as text; compared for equality only (a UUID of another kind than v7 has no useful order). */
export const uuid = {
  definition: { summary: 'a UUID', default: nullable(z.uuid({ error: 'use a UUID' })), options: {} },
  column: TEXT_COLUMN,
  schema: () => ({ type: 'string', format: 'uuid' }),
  tsType: () => 'string',
  decoder: () => ({ name: 'text' }),
  sample: (_, n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  filtering: () => ({ kind: 'text', operators: EQUALITY, value: { type: 'string', format: 'uuid' } }),
  widensTo: ['string', 'text'],
  literal: { accepts: (value) => typeof value === 'string' && UUID.test(value), expected: 'a UUID' },
} satisfies FieldTypeModule;
