/**
 * Whether a literal from the definition (a `default`, a `when` or `set` value) can be held by a field:
 * its type first, then the field's constraints.
 */
import { FIELD_TYPE, UUID } from '../field-types/index.js';
import type { IdKind } from '../model.js';
import { didYouMean } from './did-you-mean.js';
import type { FieldObject } from './field-schema.js';
import { matchesPattern } from '../patterns.js';
import { describeValue, oneOf } from './raw.js';

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
  const literal = FIELD_TYPE[field.type].literal;
  if (literal !== undefined && !literal.accepts(value)) return `expected ${literal.expected}, got ${got}`;
  // then the field's options: an enum's values, a ref's kind of id, a string's lengths and pattern, a number's bounds
  if (field.type === 'enum') return enumProblem(field.values, value);
  if (field.type === 'ref') return refProblem(value, refIdKind);
  if (field.type === 'string' || field.type === 'text') return stringProblem(field, value as string);
  if (field.type === 'integer' || field.type === 'number') return rangeProblem(field, value as number);
  return undefined;
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
