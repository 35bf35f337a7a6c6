import { randomUUID } from 'node:crypto';
import type { Database, Prepared, SqlValue } from '../db/database.js';
import type { EventLog } from '../events/log.js';
import type { Secrets } from './secrets.js';
import { send, SEND_TIMEOUT_MS, type Attempt } from './send.js';
import { dispatchSql, WEBHOOK_SQL } from './sql.js';

/** How often an instance looks for work (and at once after it commits an event). */
export const TICK_MS = 1_000;
/** Deliveries claimed at a time; a claim lasts past the send's timeout, then another instance may take it. */
const BATCH = 10;
const LEASE_MS = SEND_TIMEOUT_MS + 20_000;
/** Events turned into deliveries at a time: a subscription far behind catches up in bounded steps. */
const FAN_OUT_STEP = 1000;
const MAX_DELAY_MS = 7 * 86_400_000;

export interface RetrySettings {
  attempts: number;
  firstDelayMs: number;
}

type Claimed = { webhook_id: string; seq: number; event: string; attempts: number };

/**
 * Delivers webhooks, in every instance: it turns committed events into deliveries, claims due ones (a lease in the
 * database, taken with FOR UPDATE SKIP LOCKED on PostgreSQL: no two instances send one delivery at once), sends them
 * and records each attempt: delivered on a 2xx; else retried after `firstDelay`, about twice as late each time (±25%
 * jitter), `attempts` times in all, then failed. Stopping finishes the sends under way and releases the rest.
 */
export class Dispatcher {
  readonly #sql: { [K in keyof ReturnType<typeof dispatchSql>]: Prepared<Record<string, SqlValue>> };
  readonly #secrets: Prepared<Record<string, never>>;
  readonly #me = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly db: Database,
    log: EventLog,
    private readonly secrets: Secrets,
    private readonly retry: RetrySettings,
    private readonly allowPrivate: boolean,
  ) {
    const sql = dispatchSql(db.dialect);
    this.#sql = {
      behind: db.prepare(sql.behind),
      fanOut: db.prepare(sql.fanOut),
      advance: db.prepare(sql.advance),
      claim: db.prepare(sql.claim),
      settle: db.prepare(sql.settle),
      release: db.prepare(sql.release),
    };
    this.#secrets = db.prepare(WEBHOOK_SQL.secrets);
    this.#unsubscribe = log.onCommit(() => this.wake());
  }

  start(): void {
    this.#timer = setInterval(() => this.wake(), TICK_MS);
    this.#timer.unref();
    this.wake();
  }

  /** Looks for work now (once the round under way, if any, is done). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#round()
      .catch(() => undefined) // the database is unavailable: the next tick tries again; claims expire by themselves
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /** Stops looking for work, and waits for the sends under way (each ends within SEND_TIMEOUT_MS). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#unsubscribe();
    await this.#running;
  }

  async #round(): Promise<void> {
    await this.#fanOut();
    for (let rounds = 0; rounds < 10 && !this.#stopped; rounds += 1) {
      const now = Date.now();
      const claimed = (await this.#sql.claim.all({
        until: new Date(now + LEASE_MS).toISOString(),
        me: this.#me,
        now: new Date(now).toISOString(),
        batch: BATCH,
      })) as unknown as Claimed[];
      if (claimed.length === 0) return;
      const targets = await this.#targets();
      await Promise.all(claimed.map((delivery) => this.#deliver(delivery, targets)));
      if (claimed.length < BATCH) return;
    }
  }

  async #fanOut(): Promise<void> {
    for (let step = 0; step < 10; step += 1) {
      const behind = await this.#sql.behind.all({});
      if (behind.length === 0) return;
      const at = new Date().toISOString();
      for (const row of behind) {
        const from = Number(row.cursor);
        const through = Math.min(Number(row.latest), from + FAN_OUT_STEP);
        const webhook = String(row.id);
        await this.db.atomically(this.#sql.fanOut.bind({ at, webhook, from, through }), () => [
          this.#sql.advance.bind({ webhook, from, through, updated: row.updated_at ?? null }),
        ]);
      }
    }
  }

  /** Each enabled subscription's URL and secret, read once a round (a subscription changed meanwhile is read anew). */
  async #targets(): Promise<Map<string, { url: string; secret: string | undefined }>> {
    const rows = await this.#secrets.all({});
    return new Map(
      rows.map((row) => [
        String(row.id),
        { url: String(row.url), secret: this.secrets.open(String(row.secret)) },
      ]),
    );
  }

  async #deliver(
    delivery: Claimed,
    targets: Map<string, { url: string; secret: string | undefined }>,
  ): Promise<void> {
    const key = { webhook: delivery.webhook_id, seq: Number(delivery.seq), me: this.#me };
    const target = targets.get(delivery.webhook_id);
    if (this.#stopped || target === undefined) {
      // stopping, or the subscription was disabled since: the delivery waits, unclaimed
      await this.#sql.release.run(key);
      return;
    }
    const attempt: Attempt =
      target.secret === undefined
        ? {
            status: null,
            error: 'the signing secret cannot be read: WEBHOOK_KEY changed since the subscription was made',
          }
        : await send(target.url, target.secret, `evt_${delivery.seq}`, delivery.event, this.allowPrivate);
    const attempts = Number(delivery.attempts) + 1;
    const delivered = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
    const failed = !delivered && attempts >= this.retry.attempts;
    const at = new Date();
    await this.#sql.settle.run({
      ...key,
      status: delivered ? 'delivered' : failed ? 'failed' : 'pending',
      code: attempt.status,
      error: delivered ? null : (attempt.error ?? `the receiver answered ${attempt.status}`),
      next: delivered || failed ? null : new Date(at.getTime() + this.#delay(attempts)).toISOString(),
      at: at.toISOString(),
    });
  }

  /** The delay after attempt `n` failed: firstDelay × 2^(n-1), ±25%, a week at most. */
  #delay(n: number): number {
    return Math.round(
      Math.min(MAX_DELAY_MS, this.retry.firstDelayMs * 2 ** (n - 1)) * (0.75 + Math.random() * 0.5),
    );
  }
}
