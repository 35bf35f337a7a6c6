import type { JsonValue } from '../types.js';
import type { SqlValue } from './database.js';

/** A column read from a row: undefined only if the statement did not select it. */
type Column = SqlValue | undefined;

/**
 * Conversions between API values and column values. Rows look the same on every driver:
 * booleans are 0/1, JSON is text, datetimes are ISO 8601 text in UTC.
 */
export class CorruptRowError extends Error {
  override name = 'CorruptRowError';
}

const expected = (what: string, value: Column): CorruptRowError =>
  new CorruptRowError(`expected ${what} in a column, found ${typeof value}`);

export function text(value: Column): string {
  if (typeof value !== 'string') throw expected('text', value);
  return value;
}

export function numeric(value: Column): number {
  if (typeof value !== 'number') throw expected('a number', value);
  return value;
}

export const flag = (value: Column): boolean => numeric(value) !== 0;

export const json = (value: Column): JsonValue => JSON.parse(text(value)) as JsonValue;

/** One of an enum's values. */
export function member<T extends string>(value: Column, values: readonly T[]): T {
  const found = values.find((candidate) => candidate === value);
  if (found === undefined) throw expected(`one of ${values.join(', ')}`, value);
  return found;
}

/** Applies `decode` unless the column is NULL. */
export const orNull = <T>(value: Column, decode: (value: Column) => T): T | null =>
  value === null ? null : decode(value);

/** A field's default when the client omitted it; an explicit null stays null. */
export const orDefault = <T>(value: T | undefined, fallback: T): T =>
  value === undefined ? fallback : value;

export const toFlag = (value: boolean | null): SqlValue => (value === null ? null : value ? 1 : 0);

export const toJson = (value: JsonValue | null): SqlValue => (value === null ? null : JSON.stringify(value));

/** Any ISO 8601 datetime, stored in UTC with a `Z`. */
export const toUtc = (value: string | null): SqlValue =>
  value === null ? null : new Date(value).toISOString();

let lastMs = Number.NaN;
let lastIso = '';

/**
 * The time now, ISO 8601 in UTC. Date#toISOString costs about half a microsecond (as much as the rest of a create's
 * JavaScript outside the statement): writes in the same millisecond share the one string made for it.
 */
export function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** Whether a PATCH gave a field (1) or left it out (0): the statement keeps the stored value then. */
export const given = (value: unknown): SqlValue => (value === undefined ? 0 : 1);

type JsonObject = { [key: string]: JsonValue };

/** Whether a PATCH value of a json field is merged into the stored value (an object) rather than replacing it. */
export const merges = (value: JsonValue | null | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * RFC 7396 JSON Merge Patch of `target` by `patch`, in time linear in the size of both (SQLite's json_patch and a
 * jsonb_set per key are quadratic in the number of keys). Members are copied into an object without a prototype, so
 * that no key can reach one.
 */
export function mergePatch(target: JsonValue | null | undefined, patch: JsonValue): JsonValue {
  if (!merges(patch)) return patch;
  const result: JsonObject = Object.create(null) as JsonObject;
  if (merges(target)) for (const [key, value] of Object.entries(target)) result[key] = value;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** A token subject as an integer id; -1, which no auto-incremented id takes, when it is not one. */
export const subjectAsId = (subject: string): number =>
  /^[1-9][0-9]{0,14}$/.test(subject) ? Number(subject) : -1;
