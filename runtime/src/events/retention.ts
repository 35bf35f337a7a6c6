import type { Database, Prepared } from '../db/database.js';
import { settledOf } from './settled.js';

/** Rows removed by one statement of the cleanup, and statements in one round: a round's work is bounded. */
const BATCH = 1000;
const BATCHES = 20;

/**
 * The oldest events, through `BATCH`, that are older than `before`: removed, and their seqs returned. The newest event
 * always stays, however old: on SQLite the next seq is one more than the largest there (see the migration's table).
 * Only settled events (`:through`, see settled.ts): the horizon never passes a `seq` still to commit, which a reader
 * starting from the horizon would then skip.
 */
const PRUNE = `
  DELETE FROM "restsmith_events"
  WHERE "seq" IN (
    SELECT "seq" FROM (SELECT "seq", "at" FROM "restsmith_events" ORDER BY "seq" LIMIT ${BATCH}) AS "oldest"
    WHERE "at" < :before
  )
  AND "seq" < (SELECT max("seq") FROM "restsmith_events")
  AND "seq" <= :through
  RETURNING "seq"`;

/** Settled deliveries (delivered or failed) older than `before`, `BATCH` at a time: the delivery log is kept as long. */
const PRUNE_DELIVERIES = `
  DELETE FROM "restsmith_deliveries"
  WHERE ("webhook_id", "seq") IN (
    SELECT "webhook_id", "seq" FROM "restsmith_deliveries"
    WHERE "status" <> 'pending' AND "updated_at" < :before
    LIMIT ${BATCH}
  )`;

/** The horizon only moves forward, whatever order two instances' cleanups commit in. */
const HORIZON = `
  UPDATE "restsmith_event_horizon"
  SET "pruned_through" = CASE WHEN "pruned_through" < :through THEN :through ELSE "pruned_through" END
  WHERE "id" = 1`;

/**
 * Removes the events older than the retention, in a background round every `intervalMs` (in each instance; rounds of
 * two instances do not conflict). Each batch removes the oldest events and moves the horizon (the largest `seq`
 * removed, under which the feed answers 410) in one transaction, so that no reader sees a gap the horizon does not
 * explain.
 */
export class Retention {
  readonly #prune: Prepared<{ before: string; through: number }>;
  readonly #horizon: Prepared<{ through: number }>;
  readonly #deliveries: Prepared<{ before: string }> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly retentionMs: number,
    /** whether webhooks' deliveries are kept too (their log is pruned by the same retention) */
    deliveries = false,
  ) {
    this.#prune = db.prepare(PRUNE);
    this.#horizon = db.prepare(HORIZON);
    this.#deliveries = deliveries ? db.prepare(PRUNE_DELIVERIES) : undefined;
  }

  /** Starts the rounds: every quarter of the retention, between a quarter of a second and a minute. */
  start(): void {
    const intervalMs = Math.min(60_000, Math.max(250, Math.floor(this.retentionMs / 4)));
    this.#timer = setInterval(() => {
      this.#round = this.#round.then(() =>
        this.prune().then(
          () => undefined,
          () => undefined,
        ),
      );
    }, intervalMs);
    this.#timer.unref();
  }

  /** Stops the rounds, once the one under way (if any) is done. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#round;
  }

  /** One round: how many events it removed. */
  async prune(now = Date.now()): Promise<number> {
    const before = new Date(now - this.retentionMs).toISOString();
    const settled = await settledOf(this.db).through();
    let removed = 0;
    for (let batch = 0; batch < BATCHES; batch += 1) {
      const rows = await this.db.atomically(this.#prune.bind({ before, through: settled }), (gone) => {
        if (gone.length === 0) return [];
        const through = Math.max(...gone.map((row) => Number(row.seq)));
        return [this.#horizon.bind({ through })];
      });
      removed += rows.length;
      if (rows.length < BATCH) break;
    }
    for (let batch = 0; this.#deliveries !== undefined && batch < BATCHES; batch += 1) {
      if ((await this.#deliveries.run({ before })) < BATCH) break;
    }
    return removed;
  }
}
