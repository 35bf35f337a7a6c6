import * as z from 'zod';
import { nullable } from './options.js';
import { ORDERED, type FieldTypeModule } from './field-type.js';
import { isDate } from './date.js';
import { dayOf } from './samples.js';

const DATETIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** RFC 3339 as the generated server accepts it: a real date and time, UTC year 1 to 9999 (no leap second, no 24:00). */
function isDateTime(value: unknown): boolean {
  const match = typeof value === 'string' ? DATETIME.exec(value) : null;
  if (!match || !isDate(match[1])) return false;
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (match[7] !== undefined && (Number(match[7]) > 23 || Number(match[8]) > 59)) return false;
  const utcYear = new Date(value as string).getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999;
}

/**
 * An instant, returned in UTC with milliseconds (`toUtc` on the way in): SQLite holds that text, which sorts as time
 * does; PostgreSQL a TIMESTAMPTZ.
 */
export const datetime = {
  definition: {
    summary: 'an instant, ISO 8601, returned in UTC',
    default: nullable(
      z.iso.datetime({ offset: true, error: 'use an ISO 8601 date-time such as 2024-05-01T12:00:00Z' }),
    ),
    options: {},
  },
  column: { sqlite: () => 'TEXT', postgres: () => 'TIMESTAMPTZ' },
  schema: () => ({ type: 'string', format: 'date-time' }),
  tsType: () => 'string',
  decoder: () => ({ name: 'text' }),
  encoder: 'toUtc',
  sample: (_, n) => `${dayOf(n)}T12:00:00.000Z`,
  filtering: () => ({ kind: 'datetime', operators: ORDERED, value: { type: 'string', format: 'date-time' } }),
  widensTo: ['string', 'text'],
  literal: { accepts: isDateTime, expected: 'an ISO 8601 date-time such as 2024-05-01T12:00:00Z' },
} satisfies FieldTypeModule;
