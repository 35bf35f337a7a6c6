import { COMMIT_ORDER_LOCK } from './log.js';

/**
 * What a row a store writes is as the `data` of its event, told to PostgreSQL so that it makes the event of the row in
 * the write's own statement (see loggedWrite). Made by the generated store of a resource without computed fields (they
 * are your functions: such a resource records its events in a transaction of two statements, see log.ts).
 */
export interface EventShape {
  /** each field the API returns, in its order: its key, its column, and whether it is a datetime (served in UTC) */
  fields: readonly { key: string; column: string; datetime?: true }[];
  /** the owner columns, whose values the feed filters on */
  owners: readonly string[];
}

/** The named parameters loggedWrite adds to a write's own. */
export interface LoggedParams {
  event_at: string;
  event_actor: string | null;
}

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** A column of the written row as the API serves it: TIMESTAMPTZ as ISO 8601 in UTC with milliseconds, as toISOString. */
const served = (column: string, datetime: boolean): string => {
  const value = `"changed".${ident(column)}`;
  return datetime ? `to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : value;
};

/**
 * A write of a store (`INSERT`/`UPDATE`/`DELETE … RETURNING` the row), in PostgreSQL, made to record its event
 * `<resource>.<kind>` in the same statement: one round trip and, outside a transaction, its own transaction. The event
 * is the JSON the feed serves (less its `seq`), made by `row_to_json` of the row written, with the same keys in the
 * same order as log.ts writes them on SQLite; a write that changes no row records none. The commit-order lock (see
 * log.ts) is taken shared before the event row draws its `seq` (the row of the lock's subquery is joined before the
 * insert computes its default), and held until the statement commits.
 */
export function loggedWrite(write: string, resource: string, kind: string, shape: EventShape): string {
  const type = literal(`${resource}.${kind}`);
  const record = shape.fields.map(
    ({ key, column, datetime }) => `${served(column, datetime === true)} AS ${ident(key)}`,
  );
  const owners =
    shape.owners.length === 0
      ? 'NULL'
      : `CASE WHEN coalesce(${shape.owners.map((c) => `"changed".${ident(c)}::text`).join(', ')}) IS NULL THEN NULL ` +
        `ELSE chr(31) || concat_ws(chr(31), ${shape.owners.map((c) => `"changed".${ident(c)}`).join(', ')}) || chr(31) END`;
  const data = kind === 'deleted' ? 'NULL::json' : 'row_to_json("record")';
  return `WITH "changed" AS (
${write}
), "logged" AS (
  INSERT INTO "restsmith_events" ("type", "at", "owners", "actor", "event")
  SELECT ${type}, "event"."at", ${owners}, "event"."actor", row_to_json("event")::text
  FROM "changed"
  CROSS JOIN LATERAL (SELECT ${record.join(', ')}) AS "record"
  CROSS JOIN LATERAL (
    SELECT ${type} AS "type", ${literal(resource)} AS "resource", "changed"."id" AS "recordId",
      "changed"."version" AS "version", CAST(:event_at AS text) AS "at", CAST(:event_actor AS text) AS "actor",
      ${data} AS "data"
  ) AS "event"
  CROSS JOIN (SELECT pg_advisory_xact_lock_shared(${COMMIT_ORDER_LOCK})) AS "commit_order"
)
SELECT * FROM "changed"`;
}
