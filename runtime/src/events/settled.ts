import type { Database, Statement } from '../db/database.js';
import { COMMIT_ORDER_LOCK } from './log.js';

/**
 * How long a reader's barrier waits, at most, for the writes with events in flight (see Settled): while it waits, new
 * writes with events wait behind it, so a write that keeps its transaction open for long holds readers back this
 * long, never writers.
 */
export const BARRIER_WAIT_MS = 200;

/**
 * A barrier of an instance starts this long after the one before it started, at the soonest: under a steady load of
 * writes and readers, new writes are held up by at most one barrier each period, and a reader waits this much more.
 */
export const BARRIER_GAP_MS = 10;

/**
 * The barrier, in one statement (its own transaction, so the lock goes at its end): the commit-order lock taken
 * EXCLUSIVE, which waits for every writer that holds it shared, that is for every transaction that drew a `seq` and
 * has not yet committed or rolled back; then the sequence's last value, read once the lock is held (the outer select
 * list is computed from the row of the subquery, which is the lock taken; OFFSET 0 keeps the subqueries apart). The
 * events' sequence is an identity of CACHE 1: its last value is the largest `seq` any transaction drew. When no event
 * past the bound known before (`$1`) is committed, that bound is the answer and no lock is taken (the subquery is an
 * InitPlan, run only when the CASE needs it): a reader that polls an idle feed holds up no writer.
 */
const BARRIER = `
  SELECT CASE WHEN coalesce((SELECT max("seq") FROM "restsmith_events"), 0) <= $1::bigint THEN $1::bigint ELSE (
    SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('"restsmith_events"', 'seq')::regclass), 0)
    FROM (
      SELECT pg_advisory_xact_lock(${COMMIT_ORDER_LOCK}) AS "locked"
      FROM (SELECT set_config('lock_timeout', '${BARRIER_WAIT_MS}ms', true) AS "timeout" OFFSET 0) AS "wait"
      OFFSET 0
    ) AS "barrier"
  ) END AS "settled"`;

/**
 * Through which `seq` the feed may be read: every event of a smaller or equal `seq` is committed or was rolled back,
 * so a reader that reads only through it never sees an event before one of a smaller `seq` that commits later.
 *
 * On PostgreSQL, writes with events take the commit-order lock SHARED before their event draws its `seq` and hold it
 * until they end (events/log.ts): shared holders do not wait for each other, so writes on every instance commit in
 * parallel, and `seq` is drawn in no particular commit order. A reader passes the barrier above first. One barrier of
 * an instance is under way at a time: the readers that come while it is under way share the next one (so that a
 * reader never takes a bound drawn before it came, which could miss a write its client saw committed), and the lock
 * is taken exclusive once per round whatever the number of readers. A barrier that waits BARRIER_WAIT_MS without the
 * lock (a write holds its transaction open) gives up: the readers get the last bound this instance knew, which is
 * still safe (bounds only grow), and see the newer events at their next read.
 *
 * On SQLite, one writer commits at a time in `seq` order: every event committed is settled, and no barrier runs.
 */
export class Settled {
  readonly #barrier: Statement | undefined;
  #known = 0;
  /** the barrier under way, and the one the readers that came meanwhile wait for */
  #running: Promise<number> | undefined;
  #next: Promise<number> | undefined;
  /** when the last barrier started (ms since the epoch) */
  #started = 0;

  constructor(
    db: Database,
    private readonly gapMs = BARRIER_GAP_MS,
  ) {
    this.#barrier = db.dialect === 'postgres' ? db.prepareText(BARRIER) : undefined;
  }

  /** Whether reads pass a barrier (PostgreSQL); on SQLite every event committed is settled. */
  get waits(): boolean {
    return this.#barrier !== undefined;
  }

  /** The last bound this instance knew, without a barrier (on SQLite, every event there is settled). */
  get known(): number {
    return this.#barrier === undefined ? Number.MAX_SAFE_INTEGER : this.#known;
  }

  /** The bound: every event through it is settled (on SQLite, every event there is). */
  through(): Promise<number> {
    if (this.#barrier === undefined) return Promise.resolve(Number.MAX_SAFE_INTEGER);
    if (this.#next !== undefined) return this.#next;
    if (this.#running === undefined && Date.now() >= this.#started + this.gapMs) return this.#start();
    this.#next = this.#queued();
    return this.#next;
  }

  /** The next barrier: once the one under way is done, and gapMs after it started. */
  async #queued(): Promise<number> {
    await this.#running?.then(
      () => undefined,
      () => undefined,
    );
    const wait = this.#started + this.gapMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return this.#start();
  }

  /** Starts a barrier: the one under way, until it is done; readers that come from now on wait for the next. */
  #start(): Promise<number> {
    this.#next = undefined;
    this.#started = Date.now();
    const pass = this.#pass();
    this.#running = pass;
    const done = (): void => {
      if (this.#running === pass) this.#running = undefined;
    };
    pass.then(done, done);
    return pass;
  }

  async #pass(): Promise<number> {
    try {
      const row = await this.#barrier?.get([this.#known]);
      this.#known = Math.max(this.#known, Number(row?.settled ?? 0));
      return this.#known;
    } catch (error) {
      // 55P03: the lock was not had in BARRIER_WAIT_MS; the last bound is safe, newer events come at a later read
      if ((error as { code?: unknown }).code === '55P03') return this.#known;
      throw error;
    }
  }
}

/** The one Settled of a database (of an instance): its feed, streams, dispatcher and retention share its barriers. */
const settled = new WeakMap<Database, Settled>();

export function settledOf(db: Database): Settled {
  let made = settled.get(db);
  if (made === undefined) settled.set(db, (made = new Settled(db)));
  return made;
}
