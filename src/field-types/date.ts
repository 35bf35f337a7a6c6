import * as z from 'zod';
import { nullable } from './options.js';
import { ORDERED, TEXT_COLUMN, type FieldTypeModule } from './field-type.js';
import { dayOf } from './samples.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day written YYYY-MM-DD. */
export function isDate(value: unknown): boolean {
  const match = typeof value === 'string' ? DATE.exec(value) : null;
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A calendar day, YYYY-MM-DD: stored as that text on both databases, so that it sorts as it is written. */
export const date = {
  definition: {
    summary: 'a calendar date, YYYY-MM-DD',
    default: nullable(z.iso.date({ error: 'use a date written YYYY-MM-DD' })),
    options: {},
  },
  column: TEXT_COLUMN,
  schema: () => ({ type: 'string', format: 'date' }),
  tsType: () => 'string',
  decoder: () => ({ name: 'text' }),
  sample: (_, n) => dayOf(n),
  filtering: () => ({ kind: 'text', operators: ORDERED, value: { type: 'string', format: 'date' } }),
  widensTo: ['string', 'text'],
  literal: { accepts: isDate, expected: 'a date written YYYY-MM-DD' },
} satisfies FieldTypeModule;
