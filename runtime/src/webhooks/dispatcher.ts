import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Prepared, SqlValue } from '../db/database.js';
import type { EventLog } from '../events/log.js';
import { settledOf } from '../events/settled.js';
import type { Secrets } from './secrets.js';
import { send, SEND_TIMEOUT_MS, type Attempt } from './send.js';
import { dispatchSql, WEBHOOK_SQL } from './sql.js';

/** How often an instance looks for work (and at once after it commits an event). */
export const TICK_MS = 1_000;
/**
 * Sends an instance has under way at once, in all and to one subscription: a slow receiver holds up its own
 * deliveries only, and a place that frees is taken by the next due delivery at once (no rounds).
 */
export const IN_FLIGHT = 32;
export const PER_WEBHOOK = 4;
/** Due deliveries a claim looks at: with room in each of their subscriptions, oldest first. */
const LOOK_AHEAD = 4 * IN_FLIGHT;
/** A claim lasts past the send's timeout, then another instance may take it. */
const LEASE_MS = SEND_TIMEOUT_MS + 20_000;
/** Events turned into deliveries at a time: a subscription far behind catches up in bounded steps. */
const FAN_OUT_STEP = 1000;
const MAX_DELAY_MS = 7 * 86_400_000;

export interface RetrySettings {
  attempts: number;
  firstDelayMs: number;
}

type Claimed = { webhook_id: string; seq: number; event: string; attempts: number };

/** What came of an attempt: delivered (a 2xx), to be tried again, or the last one and the delivery failed. */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed';

/**
 * Delivers webhooks, in every instance: it turns committed events into deliveries, claims due ones (a lease in the
 * database, taken with FOR UPDATE SKIP LOCKED on PostgreSQL: no two instances send one delivery at once), sends them
 * and records each attempt: delivered on a 2xx; else retried after `firstDelay`, about twice as late each time (±25%
 * jitter), `attempts` times in all, then failed. At most IN_FLIGHT sends are under way, PER_WEBHOOK to one
 * subscription; each send that ends makes room for the next. Stopping finishes the sends under way and releases the
 * rest.
 */
export class Dispatcher {
  readonly #sql: { [K in keyof ReturnType<typeof dispatchSql>]: Prepared<Record<string, SqlValue>> };
  readonly #secrets: Prepared<Record<string, never>>;
  readonly #me = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  /** the claiming under way, if any; `#again`: claim again once it is done; `#fanOutDue`: new events may wait */
  #claiming: Promise<void> | undefined;
  #again = false;
  #fanOutDue = true;
  #stopped = false;
  /** the sends under way, and how many to each subscription */
  readonly #sends = new Set<Promise<void>>();
  readonly #busy = new Map<string, number>();
  readonly #unsubscribe: () => void;
  /** the async context the dispatcher was made in: its work runs there, whichever request woke it */
  readonly #scope = new AsyncResource('restsmith.webhooks');
  readonly #attempts: Record<AttemptOutcome, number> = { delivered: 0, retrying: 0, failed: 0 };

  constructor(
    private readonly db: Database,
    log: EventLog,
    private readonly secrets: Secrets,
    private readonly retry: RetrySettings,
    private readonly allowPrivate: boolean,
    /** where a failed attempt is said: a warning while it is tried again, an error when it is given up */
    private readonly logger?: Pick<FastifyBaseLogger, 'warn' | 'error'>,
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

  /** Looks for new events and due deliveries now (once the claiming under way, if any, is done). */
  wake(): void {
    this.#fanOutDue = true;
    this.#claim();
  }

  /** The attempts this instance recorded since it started, by outcome: for the metrics. */
  get attempts(): Readonly<Record<AttemptOutcome, number>> {
    return this.#attempts;
  }

  /** Stops looking for work, and waits for the sends under way (each ends within SEND_TIMEOUT_MS). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#unsubscribe();
    await this.#claiming;
    await Promise.all(this.#sends);
  }

  /** Claims due deliveries while there is room, one claiming at a time. */
  #claim(): void {
    if (this.#stopped) return;
    if (this.#claiming !== undefined) {
      this.#again = true;
      return;
    }
    // not in the context of the request that woke it (a retry, a subscription enabled): the deliveries it claims
    // then are many requests' (see EventLog.onCommit)
    this.#claiming = this.#scope
      .runInAsyncScope(() => this.#fill())
      .catch(() => undefined) // the database is unavailable: the next tick tries again; claims expire by themselves
      .finally(() => {
        this.#claiming = undefined;
        if (this.#again) {
          this.#again = false;
          this.#claim();
        }
      });
  }

  async #fill(): Promise<void> {
    while (!this.#stopped) {
      // new events first, also while a backlog keeps this loop claiming
      if (this.#fanOutDue) {
        this.#fanOutDue = false;
        await this.#fanOut();
      }
      if (this.#sends.size >= IN_FLIGHT) return;
      const now = Date.now();
      const claimed = (await this.#sql.claim.all({
        until: new Date(now + LEASE_MS).toISOString(),
        me: this.#me,
        now: new Date(now).toISOString(),
        batch: IN_FLIGHT - this.#sends.size,
        per: PER_WEBHOOK,
        busy: JSON.stringify(Object.fromEntries(this.#busy)),
        ahead: LOOK_AHEAD,
      })) as unknown as Claimed[];
      if (claimed.length === 0) return;
      const targets = await this.#targets();
      for (const delivery of claimed) this.#start(delivery, targets);
    }
  }

  /** Sends a delivery claimed, counted under way until its attempt is recorded; then claims again. */
  #start(delivery: Claimed, targets: Map<string, { url: string; secret: string | undefined }>): void {
    const webhook = String(delivery.webhook_id);
    this.#busy.set(webhook, (this.#busy.get(webhook) ?? 0) + 1);
    const sending: Promise<void> = this.#deliver(delivery, targets)
      .catch(() => undefined) // not recorded (the database is unavailable): the claim expires, and it is sent again
      .finally(() => {
        this.#sends.delete(sending);
        const left = (this.#busy.get(webhook) ?? 1) - 1;
        if (left > 0) this.#busy.set(webhook, left);
        else this.#busy.delete(webhook);
        this.#claim();
      });
    this.#sends.add(sending);
  }

  /**
   * Turns new events into deliveries: only through the settled bound (events/settled.ts), so that a subscription's
   * cursor never passes an event of a smaller `seq` still to commit. The barrier runs only when a subscription is
   * behind the newest event; a round that could move no cursor (the newest events are not settled yet) ends.
   */
  async #fanOut(): Promise<void> {
    for (let step = 0; step < 10; step += 1) {
      const behind = await this.#sql.behind.all({});
      if (behind.length === 0) return;
      const settled = await settledOf(this.db).through();
      const at = new Date().toISOString();
      let moved = false;
      for (const row of behind) {
        const from = Number(row.cursor);
        const through = Math.min(Number(row.latest), settled, from + FAN_OUT_STEP);
        if (through <= from) continue;
        moved = true;
        const webhook = String(row.id);
        await this.db.atomically(this.#sql.fanOut.bind({ at, webhook, from, through }), () => [
          this.#sql.advance.bind({ webhook, from, through, updated: row.updated_at ?? null }),
        ]);
      }
      if (!moved) return;
    }
  }

  /** Each enabled subscription's URL and secret, read once a claim (a subscription changed meanwhile is read anew). */
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
            error:
              'the signing secret cannot be read: WEBHOOK_SECRET_KEY changed since the subscription was made',
          }
        : await send(target.url, target.secret, `evt_${delivery.seq}`, delivery.event, this.allowPrivate);
    const attempts = Number(delivery.attempts) + 1;
    const delivered = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
    const failed = !delivered && attempts >= this.retry.attempts;
    const at = new Date();
    const error = delivered ? null : (attempt.error ?? `the receiver answered ${attempt.status}`);
    const next = delivered || failed ? null : new Date(at.getTime() + this.#delay(attempts)).toISOString();
    await this.#sql.settle.run({
      ...key,
      status: delivered ? 'delivered' : failed ? 'failed' : 'pending',
      code: attempt.status,
      error,
      next,
      at: at.toISOString(),
    });
    this.#attempts[delivered ? 'delivered' : failed ? 'failed' : 'retrying'] += 1;
    if (delivered) return;
    // the subscription by id (its URL may hold a secret), as GET /webhooks/{id}/deliveries shows the attempt
    const said = {
      webhook: delivery.webhook_id,
      seq: key.seq,
      attempt: attempts,
      status: attempt.status,
      error,
    };
    if (failed) this.logger?.error(said, 'webhook delivery failed: no attempt is left');
    else this.logger?.warn({ ...said, next }, 'webhook delivery attempt failed: it is tried again');
  }

  /** The delay after attempt `n` failed: firstDelay × 2^(n-1), ±25%, a week at most. */
  #delay(n: number): number {
    return Math.round(
      Math.min(MAX_DELAY_MS, this.retry.firstDelayMs * 2 ** (n - 1)) * (0.75 + Math.random() * 0.5),
    );
  }
}
