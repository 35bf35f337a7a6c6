import type { ColumnSnapshot } from '../schema/snapshot.js';

/**
 * A field made a date, a datetime or a uuid from another type: its stored values are text the API checks the shape
 * of (`format: date`, `date-time`, `uuid`), so the migration keeps a value only when it has that shape, and on both
 * databases the same. A datetime is ISO 8601 with seconds and a zone (`2024-05-01T10:00:00Z`, `…+02:00`, a fraction
 * allowed; offsets to ±14:59, what both databases take), kept as the instant in UTC; a date is `YYYY-MM-DD` of a day
 * that exists; a uuid is 8-4-4-4-12 hex digits, kept as it was written. A date made a datetime is its midnight UTC; a
 * datetime made a date, its day in UTC. Any other value becomes the field's default, or NULL (then, for a required
 * field, its record is deleted, which the data-loss check says before: data-loss.ts).
 */
export const checksValues = (from: ColumnSnapshot, to: ColumnSnapshot): boolean =>
  from.type !== to.type && (to.type === 'date' || to.type === 'datetime' || to.type === 'uuid');

/** An enum whose every value is still one of `to`'s (the same, or widened): no stored value changes. */
export const keepsEnumValues = (from: ColumnSnapshot, to: ColumnSnapshot): boolean =>
  from.type === 'enum' && to.type === 'enum' && (from.values ?? []).every((v) => (to.values ?? []).includes(v));

const HEX = '[0-9a-fA-F]';
const DIGIT = '[0-9]';

/** SQLite: the value of `column` (of `from`'s type) as the text of a `to`, or NULL when it has not its shape. */
export function sqliteChecked(from: ColumnSnapshot, to: ColumnSnapshot, column: string): string {
  if (from.type === 'datetime' && to.type === 'date') return `substr(${column}, 1, 10)`;
  const text = from.type === 'date' && to.type === 'datetime' ? `(${column} || 'T00:00:00Z')` : column;
  const day = `${DIGIT.repeat(4)}-${DIGIT.repeat(2)}-${DIGIT.repeat(2)}`;
  if (to.type === 'date') return `CASE WHEN ${text} GLOB '${day}' AND date(${text}) IS ${text} THEN ${text} END`;
  if (to.type === 'uuid') {
    const uuid = [8, 4, 4, 4, 12].map((n) => HEX.repeat(n)).join('-');
    return `CASE WHEN ${text} GLOB '${uuid}' THEN ${text} END`;
  }
  // the zone: Z, or an offset (3 characters before it: ±HH:MM); between the seconds and the zone, nothing or a fraction
  const zoneLength = `(CASE WHEN ${text} GLOB '*[Zz]' THEN 1 ELSE 6 END)`;
  const fraction = `substr(${text}, 20, length(${text}) - 19 - ${zoneLength})`;
  const checks = [
    `${text} GLOB '${day}[Tt]${DIGIT}${DIGIT}:[0-5]${DIGIT}:[0-5]${DIGIT}*'`,
    `substr(${text}, 12, 2) < '24'`,
    `(${text} GLOB '*[Zz]' OR (${text} GLOB '*[+-]${DIGIT}${DIGIT}:[0-5]${DIGIT}' AND substr(${text}, -5, 2) < '15'))`,
    `(${fraction} = '' OR (${fraction} GLOB '.${DIGIT}*' AND NOT ${fraction} GLOB '.*[^0-9]*'))`,
    // a day that exists (SQLite's date functions take 2024-02-30 as 2024-03-01)
    `date(substr(${text}, 1, 10)) IS substr(${text}, 1, 10)`,
  ];
  return `CASE WHEN ${checks.join(' AND ')} THEN strftime('%Y-%m-%dT%H:%M:%fZ', upper(${text})) END`;
}

/** PostgreSQL: the same as sqliteChecked, as a value of the `to` column's type (`try`: restsmith_try_cast). */
export function postgresChecked(
  from: ColumnSnapshot,
  to: ColumnSnapshot,
  column: string,
  attempt: (text: string, type: string) => string,
): string {
  if (from.type === 'datetime') {
    // stored as TIMESTAMPTZ: its day in UTC, or its text (which is no uuid)
    return to.type === 'date' ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : 'NULL';
  }
  const text = from.type === 'date' && to.type === 'datetime' ? `(${column} || 'T00:00:00Z')` : `${column}::text`;
  if (to.type === 'date') {
    return `CASE WHEN ${text} ~ '^\\d{4}-\\d{2}-\\d{2}$' AND ${attempt(text, 'DATE')} IS NOT NULL THEN ${text} END`;
  }
  if (to.type === 'uuid') return `CASE WHEN ${text} ~ '^${HEX}{8}(-${HEX}{4}){3}-${HEX}{12}$' THEN ${text} END`;
  const shape = String.raw`^\d{4}-\d{2}-\d{2}[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-](0\d|1[0-4]):[0-5]\d)$`;
  return `CASE WHEN ${text} ~ '${shape}' THEN ${attempt(text, 'TIMESTAMPTZ')} END`;
}
