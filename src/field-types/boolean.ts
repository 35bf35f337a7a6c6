import * as z from 'zod';
import { nullable } from './options.js';
import type { FieldTypeModule } from './field-type.js';

/** true or false: SQLite holds 0 or 1 (the codec's `flag` and `toFlag`), PostgreSQL a BOOLEAN. */
export const boolean = {
  definition: { summary: 'true or false', default: nullable(z.boolean()), options: {} },
  column: { sqlite: () => 'INTEGER', postgres: () => 'BOOLEAN' },
  schema: () => ({ type: 'boolean' }),
  tsType: () => 'boolean',
  decoder: () => ({ name: 'flag' }),
  encoder: 'toFlag',
  sample: (_, n) => n % 2 === 1,
  filtering: () => ({ kind: 'boolean', operators: ['eq', 'ne'], value: { type: 'boolean' } }),
  widensTo: [],
  literal: { accepts: (value) => typeof value === 'boolean', expected: 'true or false' },
} satisfies FieldTypeModule;
