/**
 * Whether a literal from the definition (a `default`, a `when` or `set` value) can be held by a field:
 * its type first, then the field's constraints.
 */
import type { IdKind } from '../model.js';
import { didYouMean } from './did-you-mean.js';
import type { FieldObject } from './field-schema.js';
import { matchesPattern } from '../patterns.js';
import { describeValue, oneOf } from './raw.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * Why `value` cannot be stored in `field`, or undefined when it can.
 * `refIdKind` is the id kind of the resource a `ref` field points to, when known.
 */
export function valueProblem(field: FieldObject, value: unknown, refIdKind?: IdKind): string | undefined {
  if (value === null) return field.nullable === true || field.type === 'json' ? undefined : 'null needs nullable: true';
  const got = describeValue(value);
  if (holdsLoneSurrogate(value)) {
    return `${got} holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair), which a database cannot store as text`;
  }
  switch (field.type) {
    case 'string':
    case 'text':
      return typeof value === 'string' ? stringProblem(field, value) : `expected a string, got ${got}`;
    case 'integer':
      return Number.isInteger(value) ? rangeProblem(field, Number(value)) : `expected an integer, got ${got}`;
    case 'number':
      return typeof value === 'number' ? rangeProblem(field, value) : `expected a number, got ${got}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected true or false, got ${got}`;
    case 'date':
      return isDate(value) ? undefined : `expected a date written YYYY-MM-DD, got ${got}`;
    case 'datetime':
      return isDateTime(value) ? undefined : `expected an ISO 8601 date-time such as 2024-05-01T12:00:00Z, got ${got}`;
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? undefined : `expected a UUID, got ${got}`;
    case 'enum':
      return enumProblem(field.values, value);
    case 'json':
      return undefined;
    case 'ref':
      return refProblem(value, refIdKind);
  }
}

function stringProblem(
  field: { minLength?: number; maxLength?: number; pattern?: string; format?: 'email' | 'url' },
  value: string,
): string | undefined {
  const shown = JSON.stringify(value);
  if (field.minLength !== undefined && value.length < field.minLength) {
    return `${shown} is shorter than minLength ${field.minLength}`;
  }
  if (field.maxLength !== undefined && value.length > field.maxLength) {
    return `${shown} is longer than maxLength ${field.maxLength}`;
  }
  if (field.pattern !== undefined && !matchesPattern(field.pattern, value)) {
    return `${shown} does not match pattern ${field.pattern}`;
  }
  if (field.format === 'email' && !EMAIL.test(value)) return `${shown} is not an email address`;
  if (field.format === 'url' && !isWebUrl(value)) return `${shown} is not an http or https URL`;
  return undefined;
}

/** In `u` mode a surrogate pair is one code point: only a lone surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether a string anywhere in `value` (a json value's keys included) holds a lone surrogate. */
function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, item]) => LONE_SURROGATE.test(key) || holdsLoneSurrogate(item));
  }
  return false;
}

function rangeProblem(field: { min?: number; max?: number }, value: number): string | undefined {
  if (field.min !== undefined && value < field.min) return `${value} is less than min ${field.min}`;
  if (field.max !== undefined && value > field.max) return `${value} is more than max ${field.max}`;
  return undefined;
}

export function isDate(value: unknown): boolean {
  const match = typeof value === 'string' ? DATE.exec(value) : null;
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

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

function enumProblem(values: readonly string[], value: unknown): string | undefined {
  if (typeof value === 'string' && values.includes(value)) return undefined;
  const hint = typeof value === 'string' ? didYouMean(value, values) : '';
  return `${describeValue(value)} is not one of ${oneOf(values)}${hint}`;
}

function refProblem(value: unknown, idKind: IdKind | undefined): string | undefined {
  if (idKind === 'integer')
    return Number.isInteger(value) ? undefined : `expected an integer id, got ${describeValue(value)}`;
  if (idKind === 'uuid') {
    return typeof value === 'string' && UUID.test(value) ? undefined : `expected a UUID, got ${describeValue(value)}`;
  }
  return typeof value === 'string' || Number.isInteger(value)
    ? undefined
    : `expected an id, got ${describeValue(value)}`;
}

/** `format: url` takes absolute http and https URLs only (no javascript:, data:, file: …), as the generated server does. */
export function isWebUrl(value: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value);
}
