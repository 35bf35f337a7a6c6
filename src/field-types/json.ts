import * as z from 'zod';
import type { FieldTypeModule } from './field-type.js';

/** Any JSON value: JSON text on SQLite, JSONB on PostgreSQL; neither filtered nor sorted on. */
export const json = {
  definition: { summary: 'any JSON value', default: z.json(), options: {} },
  column: { sqlite: () => 'TEXT', postgres: () => 'JSONB' },
  // see MAX_JSON_DEPTH in the generated http/validator.ts
  schema: () => ({ maxDepth: 32 }),
  tsType: () => 'JsonValue',
  decoder: () => ({ name: 'json' }),
  encoder: 'toJson',
  sample: (_, n) => ({ sample: n, tags: ['a', 'b'] }),
  filtering: () => undefined,
  widensTo: [],
} satisfies FieldTypeModule;
