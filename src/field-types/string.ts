import * as z from 'zod';
import { lengths, nullable, pattern } from './options.js';
import type { Field } from '../model.js';
import { anchoredPattern } from '../patterns.js';
import { ORDERED, TEXT_COLUMN, type FieldTypeModule, type JsonSchema } from './field-type.js';
import { matching, sizedText } from './samples.js';

/** `format: url` is an absolute http or https URL (the generated server's `uri` format checks the same). */
const WEB_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';

/** A string's schema, its lengths, pattern and format included (a text field has lengths only). */
const stringSchema = (field: Field): JsonSchema => ({
  type: 'string',
  ...(field.minLength !== undefined && { minLength: field.minLength }),
  ...(field.maxLength !== undefined && { maxLength: field.maxLength }),
  // the whole value must match: patterns are anchored (and run by RE2 in the generated server)
  ...(field.pattern !== undefined && { pattern: anchoredPattern(field.pattern) }),
  ...(field.pattern === undefined && field.format === 'url' && { pattern: WEB_URL_PATTERN }),
  ...(field.format !== undefined && { format: field.format === 'url' ? 'uri' : 'email' }),
});

/** A short string: a name, a title, an email address or a URL (`format`), a code (`pattern`). */
export const string = {
  definition: {
    summary: 'a short string',
    default: nullable(z.string()),
    options: {
      ...lengths,
      pattern,
      format: z.enum(['email', 'url']).optional().describe('A well-known format the value must have.'),
    },
  },
  column: TEXT_COLUMN,
  schema: stringSchema,
  tsType: () => 'string',
  decoder: () => ({ name: 'text' }),
  sample(field, n) {
    if (field.pattern !== undefined) return matching(field.pattern, field, n);
    if (field.format === 'email') return `sample${n}@example.com`;
    if (field.format === 'url') return `https://example.com/${n}`;
    return sizedText(`Sample ${field.name} ${n}`, field, n);
  },
  filtering: () => ({ kind: 'text', operators: [...ORDERED, 'contains'], value: { type: 'string' } }),
  widensTo: ['text'],
  literal: { accepts: (value) => typeof value === 'string', expected: 'a string' },
} satisfies FieldTypeModule;
