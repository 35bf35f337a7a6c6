import * as z from 'zod';
import { lengths, nullable } from './options.js';
import { string } from './string.js';
import type { FieldTypeModule } from './field-type.js';
import { sizedText } from './samples.js';

/** A long string: a body, a note. Stored and compared as a string is; its samples read as sentences. */
export const text = {
  ...string,
  definition: { summary: 'a long string', default: nullable(z.string()), options: lengths },
  sample: (field, n) => sizedText(`Some ${field.name} text, number ${n}.`, field, n),
  widensTo: ['string'],
} satisfies FieldTypeModule;
