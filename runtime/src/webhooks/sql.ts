import type { Dialect } from '../db/database.js';

/**
 * The statements of webhook subscriptions and deliveries. A delivery is one event for one subscription, keyed by the
 * pair (its id in the API is the event's `seq`); it keeps a copy of the event as sent, so that the retention of
 * events never loses one still pending. A subscription starts after the newest settled event (`:settled`, see
 * events/settled.ts): every event that commits after it is made is sent to it, one of a smaller `seq` too.
 */
const WEBHOOK_COLUMNS = `"id", "url", "types", "description", "enabled", "created_at", "updated_at"`;
const DELIVERY_COLUMNS = `"webhook_id", "seq", "type", "event", "status", "attempts", "last_status", "last_error", "next_attempt_at", "created_at", "updated_at"`;

export const WEBHOOK_SQL = {
  insert: `
    INSERT INTO "restsmith_webhooks" ("id", "url", "types", "description", "enabled", "secret", "cursor", "created_at", "updated_at")
    VALUES (:id, :url, :types, :description, 1, :secret,
      (SELECT coalesce(max("seq"), 0) FROM "restsmith_events" WHERE "seq" <= :settled), :at, :at)
    RETURNING ${WEBHOOK_COLUMNS}`,
  count: `SELECT count(*) AS "count" FROM "restsmith_webhooks"`,
  list: `SELECT ${WEBHOOK_COLUMNS} FROM "restsmith_webhooks" ORDER BY "created_at", "id" LIMIT 1000`,
  get: `SELECT ${WEBHOOK_COLUMNS} FROM "restsmith_webhooks" WHERE "id" = :id`,
  secrets: `SELECT "id", "url", "secret" FROM "restsmith_webhooks" WHERE "enabled" = 1`,
  update: `
    UPDATE "restsmith_webhooks"
    SET "url" = :url, "types" = :types, "description" = :description, "enabled" = :enabled, "updated_at" = :at
    WHERE "id" = :id
    RETURNING ${WEBHOOK_COLUMNS}`,
  delete: `DELETE FROM "restsmith_webhooks" WHERE "id" = :id RETURNING "id"`,
  deliveries: `
    SELECT ${DELIVERY_COLUMNS} FROM "restsmith_deliveries"
    WHERE "webhook_id" = :webhook AND "seq" > :after AND "status" = coalesce(:status, "status")
    ORDER BY "seq"
    LIMIT :limit`,
  delivery: `SELECT ${DELIVERY_COLUMNS} FROM "restsmith_deliveries" WHERE "webhook_id" = :webhook AND "seq" = :seq`,
  retry: `
    UPDATE "restsmith_deliveries"
    SET "status" = 'pending', "attempts" = 0, "next_attempt_at" = :at, "updated_at" = :at
    WHERE "webhook_id" = :webhook AND "seq" = :seq AND "status" = 'failed'
    RETURNING ${DELIVERY_COLUMNS}`,
};

/**
 * The dispatcher's statements. Fan-out turns the events of one enabled subscription after its cursor, through
 * `:through` (at most the settled bound: every smaller or equal seq is committed or rolled back, see
 * events/settled.ts), into deliveries, and moves its cursor, in one transaction; two instances doing it at once insert
 * each delivery once.
 */
export function dispatchSql(dialect: Dialect) {
  const contains = (list: string, item: string): string =>
    dialect === 'sqlite' ? `instr(${list}, ${item}) > 0` : `strpos(${list}, ${item}) > 0`;
  // `types` is the JSON list the subscription was given: event types, and resources (each of its types)
  const resource =
    dialect === 'sqlite' ? `substr(e."type", 1, instr(e."type", '.') - 1)` : `split_part(e."type", '.', 1)`;
  const big = dialect === 'postgres' ? '::bigint' : '';
  const text = dialect === 'postgres' ? '::text' : '';
  // the sends under way to the row's subscription, from the JSON object `:busy`
  const busy =
    dialect === 'sqlite'
      ? `coalesce((SELECT "value" FROM json_each(:busy) WHERE "key" = "webhook_id"), 0)`
      : `coalesce((:busy::jsonb ->> "webhook_id")::int, 0)`;
  return {
    // the enabled subscriptions behind the latest event, and where each is
    behind: `
      SELECT w."id", w."cursor", w."updated_at", e."latest"
      FROM "restsmith_webhooks" AS w, (SELECT coalesce(max("seq"), 0) AS "latest" FROM "restsmith_events") AS e
      WHERE w."enabled" = 1 AND w."cursor" < e."latest"
      ORDER BY w."cursor"
      LIMIT 100`,
    fanOut: `
      INSERT INTO "restsmith_deliveries"
        ("webhook_id", "seq", "type", "event", "status", "attempts", "next_attempt_at", "created_at", "updated_at")
      SELECT w."id", e."seq", e."type", '{"seq":' || e."seq" || ',' || substr(e."event", 2), 'pending', 0, :at${text}, :at, :at
      FROM "restsmith_webhooks" AS w
      JOIN "restsmith_events" AS e ON e."seq" > :from${big} AND e."seq" <= :through${big}
      WHERE w."id" = :webhook${text} AND w."enabled" = 1 AND (w."types" IS NULL
        OR ${contains('w."types"', `'"' || e."type" || '"'`)}
        OR ${contains('w."types"', `'"' || ${resource} || '"'`)})
      ON CONFLICT DO NOTHING`,
    // moves the cursor only if the subscription is as it was read: one changed meanwhile (disabled, enabled again,
    // its types changed) is fanned out again from where it was, and the deliveries made twice are one (their key)
    advance: `
      UPDATE "restsmith_webhooks" SET "cursor" = :through
      WHERE "id" = :webhook AND "cursor" = :from AND "updated_at" = :updated`,
    // due deliveries not claimed by a live instance, each claimed for `:until` by `:me`: the oldest `:batch`, at most
    // `:per` a subscription less the sends `:busy` says this instance has under way to it (a JSON object, subscription
    // id → count), among the first `:ahead` due deliveries of enabled subscriptions with room (a paused one's wait);
    // PostgreSQL skips the rows another instance is claiming this instant instead of waiting for them
    claim: `
      UPDATE "restsmith_deliveries" SET "claimed_until" = :until${text}, "claimed_by" = :me
      WHERE ("webhook_id", "seq") IN (
        SELECT "webhook_id", "seq" FROM (
          SELECT "webhook_id", "seq", "next_attempt_at",
            row_number() OVER (PARTITION BY "webhook_id" ORDER BY "next_attempt_at", "seq") AS "place"
          FROM (
            SELECT "webhook_id", "seq", "next_attempt_at" FROM "restsmith_deliveries"
            WHERE "status" = 'pending' AND "next_attempt_at" <= :now${text}
              AND ("claimed_until" IS NULL OR "claimed_until" < :now) AND ${busy} < :per${big}
              AND "webhook_id" IN (SELECT "id" FROM "restsmith_webhooks" WHERE "enabled" = 1)
            ORDER BY "next_attempt_at"
            LIMIT :ahead${big}${dialect === 'postgres' ? '\n            FOR UPDATE SKIP LOCKED' : ''}
          ) AS "due"
        ) AS "ranked"
        WHERE "place" <= :per${big} - ${busy}
        ORDER BY "next_attempt_at"
        LIMIT :batch${big}
      )
      RETURNING "webhook_id", "seq", "event", "attempts"`,
    settle: `
      UPDATE "restsmith_deliveries"
      SET "status" = :status${text}, "attempts" = "attempts" + 1, "last_status" = :code, "last_error" = :error,
        "next_attempt_at" = :next, "claimed_until" = NULL, "claimed_by" = NULL, "updated_at" = :at
      WHERE "webhook_id" = :webhook AND "seq" = :seq${big} AND "claimed_by" = :me`,
    release: `
      UPDATE "restsmith_deliveries" SET "claimed_until" = NULL, "claimed_by" = NULL
      WHERE "webhook_id" = :webhook AND "seq" = :seq${big} AND "claimed_by" = :me`,
  };
}
