/** The tables of the server itself, beside those of the resources; written by the migrations that need them. */

/** Tables of the server itself, created by the first migration: stored Idempotency-Key responses. */
export const SYSTEM_TABLES = {
  sqlite: [
    `CREATE TABLE "restsmith_idempotency" (
  "caller" TEXT NOT NULL,
  "key" TEXT NOT NULL,
  "fingerprint" TEXT NOT NULL,
  "status" INTEGER NOT NULL DEFAULT 0,
  "headers" TEXT,
  "body" TEXT,
  "created_at" TEXT NOT NULL,
  PRIMARY KEY ("caller", "key")
)`,
    `CREATE INDEX "restsmith_idempotency_created_at_idx" ON "restsmith_idempotency" ("created_at")`,
  ],
  postgres: [
    `CREATE TABLE "restsmith_idempotency" (
  "caller" TEXT COLLATE "C" NOT NULL,
  "key" TEXT COLLATE "C" NOT NULL,
  "fingerprint" TEXT NOT NULL,
  "status" INTEGER NOT NULL DEFAULT 0,
  "headers" TEXT,
  "body" TEXT,
  "created_at" TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY ("caller", "key")
)`,
    `CREATE INDEX "restsmith_idempotency_created_at_idx" ON "restsmith_idempotency" ("created_at")`,
  ],
};

/**
 * The event log (`events`): each event as the JSON it is served as, with its type, time and owners beside it for the
 * feed's filters and the retention; and the horizon, the largest `seq` the retention removed (see runtime events/).
 * `seq` is never reused: PostgreSQL's identity; on SQLite the rowid, one more than the largest (the retention always
 * keeps the newest event, so the largest never goes: no AUTOINCREMENT, and no extra page written by every insert).
 */
export const EVENT_TABLES = {
  sqlite: [
    `CREATE TABLE IF NOT EXISTS "restsmith_events" (
  "seq" INTEGER PRIMARY KEY,
  "type" TEXT NOT NULL,
  "at" TEXT NOT NULL,
  "owners" TEXT,
  "actor" TEXT,
  "event" TEXT NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS "restsmith_event_horizon" ("id" INTEGER PRIMARY KEY, "pruned_through" INTEGER NOT NULL)`,
    `INSERT INTO "restsmith_event_horizon" ("id", "pruned_through") VALUES (1, 0) ON CONFLICT DO NOTHING`,
  ],
  postgres: [
    `CREATE TABLE IF NOT EXISTS "restsmith_events" (
  "seq" BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "type" TEXT COLLATE "C" NOT NULL,
  "at" TEXT COLLATE "C" NOT NULL,
  "owners" TEXT COLLATE "C",
  "actor" TEXT COLLATE "C",
  "event" TEXT NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS "restsmith_event_horizon" ("id" INTEGER PRIMARY KEY, "pruned_through" BIGINT NOT NULL)`,
    `INSERT INTO "restsmith_event_horizon" ("id", "pruned_through") VALUES (1, 0) ON CONFLICT DO NOTHING`,
  ],
};

/**
 * Webhooks (`events.webhooks`): the subscriptions (each with its signing secret, encrypted, and the `seq` through which
 * its deliveries were made) and the deliveries, one per event and subscription, with their attempts and claims.
 */
export const webhookTables = (dialect: 'sqlite' | 'postgres'): string[] => {
  const [text, big] = dialect === 'sqlite' ? ['TEXT', 'INTEGER'] : ['TEXT COLLATE "C"', 'BIGINT'];
  return [
    `CREATE TABLE IF NOT EXISTS "restsmith_webhooks" (
  "id" ${text} PRIMARY KEY,
  "url" TEXT NOT NULL,
  "types" TEXT,
  "description" TEXT,
  "enabled" INTEGER NOT NULL DEFAULT 1,
  "secret" TEXT NOT NULL,
  "cursor" ${big} NOT NULL,
  "created_at" ${text} NOT NULL,
  "updated_at" ${text} NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS "restsmith_deliveries" (
  "webhook_id" ${text} NOT NULL REFERENCES "restsmith_webhooks" ("id") ON DELETE CASCADE,
  "seq" ${big} NOT NULL,
  "type" ${text} NOT NULL,
  "event" TEXT NOT NULL,
  "status" ${text} NOT NULL,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "last_status" INTEGER,
  "last_error" TEXT,
  "next_attempt_at" ${text},
  "claimed_until" ${text},
  "claimed_by" ${text},
  "created_at" ${text} NOT NULL,
  "updated_at" ${text} NOT NULL,
  PRIMARY KEY ("webhook_id", "seq")
)`,
    `CREATE INDEX IF NOT EXISTS "restsmith_deliveries_due_idx" ON "restsmith_deliveries" ("status", "next_attempt_at")`,
  ];
};

/** A SQL string literal (names are `[a-z0-9-]`, but quoted as any text would be). */
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/**
 * A resource renamed (`renamedFrom`): its past events become the new name's, so that the feed, the stream and the
 * deliveries still pending serve them as one resource. Both the `type` column and the event's JSON text change: the
 * text begins `{"type":"<type>","resource":"<resource>",` (events/log.ts, eventText; a delivery's with `"seq":N,`
 * first), and that prefix alone is rewritten, by string functions both databases have (a JSON function would lay
 * the rest out again, and PostgreSQL's jsonb would reorder its keys). An event whose text does not begin so keeps
 * both. A delivery already made stays as it was sent; the subscriptions' `types` name the new resource.
 */
export function renamedEvents(from: string, to: string, webhooks: boolean): string[] {
  const prefix = (seq: string, type: string, resource: string): string =>
    `'{${seq}"type":"' || ${type} || '","resource":"${resource.replaceAll("'", "''")}",'`;
  const newType = `${literal(to)} || substr("type", ${from.length + 1})`;
  const rewrite = (seq: string): string => {
    const old = prefix(seq, '"type"', from);
    return (
      `SET "type" = ${newType}, "event" = ${prefix(seq, newType, to)} || substr("event", length(${old}) + 1)\n` +
      `WHERE substr("type", 1, ${from.length + 1}) = ${literal(`${from}.`)} AND substr("event", 1, length(${old})) = ${old}`
    );
  };
  return [
    `UPDATE "restsmith_events"\n${rewrite('')}`,
    ...(webhooks
      ? [
          `UPDATE "restsmith_deliveries"\n${rewrite(`"seq":' || "seq" || ',`)} AND "status" <> 'delivered'`,
          `UPDATE "restsmith_webhooks"\n` +
            `SET "types" = replace(replace("types", ${literal(`"${from}"`)}, ${literal(`"${to}"`)}), ${literal(`"${from}.`)}, ${literal(`"${to}.`)})\n` +
            `WHERE "types" IS NOT NULL`,
        ]
      : []),
  ];
}
