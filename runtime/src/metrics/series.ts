import type * as Prometheus from 'prom-client';
import type { Database, PoolLoad, Prepared, Row, StatementFailures } from '../db/database.js';
import type { EventLog } from '../events/log.js';
import type { EventServices } from '../events/routes.js';
import type { AttemptOutcome } from '../webhooks/dispatcher.js';

/**
 * The series read when Prometheus scrapes, each by a `collect` callback: nothing is counted for them while requests
 * are served beyond the plain numbers their modules keep anyway (a pool's counts, EventLog.written,
 * Dispatcher.attempts, the streams open). Those read from the database (the feed's newest `seq`, the deliveries
 * waiting) run one statement each a scrape, and wait for it DEADLINE_MS at most: a scrape must answer while every
 * connection of the pool is taken (the moment its gauges matter most), so a statement not answered by then, or
 * failed, leaves the series at its last value (and runs on, alone: the next scrape does not start another).
 */
type Client = typeof Prometheus;

/** How long a scrape waits for a statement of the database. */
export const DEADLINE_MS = 250;

const FAILURES: readonly (keyof StatementFailures)[] = ['constraint', 'unavailable', 'error'];
const OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retrying', 'failed'];

/** The pools' gauges (by `pool`: `main`, PostgreSQL's; `scan`, the scans'), and the statements that failed. */
export function watchDatabase(client: Client, registry: Prometheus.Registry, db: Database): void {
  const registers = [registry];
  const pools = (name: string, help: string, value: (load: PoolLoad) => number): void => {
    new client.Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers,
      collect() {
        for (const [pool, load] of Object.entries(db.load().pools))
          if (load !== undefined) this.set({ pool }, value(load));
      },
    });
  };
  pools(
    'restsmith_db_pool_in_use',
    'Connections (SQLite’s scans: worker threads) running a statement now, by pool.',
    (load) => load.inUse,
  );
  pools(
    'restsmith_db_pool_waiting',
    'Statements waiting for a connection (scans: for a slot) now, by pool.',
    (load) => load.waiting,
  );
  pools('restsmith_db_pool_max', 'The size of each pool.', (load) => load.max);
  new client.Counter({
    name: 'restsmith_db_statements_failed_total',
    help: 'Statements the database refused or could not run, by reason: constraint, unavailable, error.',
    labelNames: ['reason'],
    registers,
    collect() {
      const { failed } = db.load();
      this.reset();
      for (const reason of FAILURES) this.inc({ reason }, failed[reason]);
    },
  });
}

/** The events written by this instance, the feed's newest `seq`, the streams open, and the webhooks' deliveries. */
export function watchEvents(
  client: Client,
  registry: Prometheus.Registry,
  db: Database,
  log: EventLog,
  { streams, dispatcher }: EventServices,
): void {
  const registers = [registry];
  new client.Counter({
    name: 'restsmith_events_written_total',
    help: 'Events this instance committed (each write’s, and each record a delete reached).',
    registers,
    collect() {
      this.reset();
      this.inc(log.written);
    },
  });
  const newest = reading(db, `SELECT max("seq") AS "seq" FROM "restsmith_events"`);
  new client.Gauge({
    name: 'restsmith_events_newest_seq',
    help: 'The seq of the newest event in the feed, written by any instance (0: none yet).',
    registers,
    async collect() {
      const rows = await newest();
      if (rows !== undefined) this.set(Number(rows[0]?.seq ?? 0));
    },
  });
  new client.Gauge({
    name: 'restsmith_event_streams_open',
    help: 'Event streams (GET /events/stream) this instance has open.',
    registers,
    collect() {
      this.set(streams.size);
    },
  });
  if (dispatcher === undefined) return;
  new client.Counter({
    name: 'restsmith_webhook_attempts_total',
    help: 'Webhook sends this instance made, by outcome: delivered, retrying (to be sent again), failed (the last attempt).',
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset();
      for (const outcome of OUTCOMES) this.inc({ outcome }, dispatcher.attempts[outcome]);
    },
  });
  const backlog = reading(
    db,
    `SELECT "status", count(*) AS "count" FROM "restsmith_deliveries" WHERE "status" IN ('pending', 'failed') GROUP BY "status"`,
  );
  new client.Gauge({
    name: 'restsmith_webhook_deliveries',
    help: 'Webhook deliveries in the database, of every instance, by status: pending (to be sent), failed (given up).',
    labelNames: ['status'],
    registers,
    async collect() {
      const rows = await backlog();
      if (rows === undefined) return;
      for (const status of ['pending', 'failed'])
        this.set({ status }, Number(rows.find((row) => row.status === status)?.count ?? 0));
    },
  });
}

/**
 * The rows of `sql`, or undefined when the database did not answer within DEADLINE_MS or failed; one run at a time.
 * Prepared at its first scrape: at start-up the tables may not be migrated yet.
 */
function reading(db: Database, sql: string): () => Promise<Row[] | undefined> {
  let prepared: Prepared<Record<string, never>> | undefined;
  let running: Promise<Row[] | undefined> | undefined;
  return () => {
    running ??= Promise.resolve()
      .then(() => (prepared ??= db.prepare<Record<string, never>>(sql)).all({}))
      .catch(() => undefined)
      .finally(() => (running = undefined));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), DEADLINE_MS);
    });
    return Promise.race([running, late]).finally(() => clearTimeout(timer));
  };
}
