import pg from 'pg';
import { openPostgres } from '../runtime/src/db/postgres.js';
import { EventFeed } from '../runtime/src/events/feed.js';
import { COMMIT_ORDER_LOCK } from '../runtime/src/events/log.js';
import { loggedWrite } from '../runtime/src/events/logged.js';
import { EVENT_TABLES } from '../src/migrate/system-tables.js';
import { sql, startCluster } from './postgres.js';

/**
 * SPEC §10 "Scale of the feed": WRITERS concurrent writers on one PostgreSQL database, each on its own connection, for
 * `seconds` a variant, writing as the generated stores write (the one-statement write with its event, logged.ts, and
 * the transaction of two statements of a resource with computed fields): without events; with events under the
 * commit-order lock taken exclusive (the design before, for comparison); taken shared (this one); and shared with
 * READERS readers following the feed meanwhile (each page passes the barrier, events/settled.ts). Each write sleeps
 * `flushMs` after its rows are written, before it commits (a trigger: a disk's flush, which a cluster with fsync off
 * does not have), in every variant alike.
 */
export interface WritersResult {
  writers: number;
  seconds: number;
  flushMs: number;
  /**
   * per variant and shape of write: commits per second, the 99th percentile of a write's time in ms, and with readers
   * the pages they read per second and the 99th percentile of a page's time (its barrier included)
   */
  variants: {
    variant: Variant;
    shape: Shape;
    perSecond: number;
    p99Ms: number;
    pagesPerSecond?: number;
    pageP99Ms?: number;
  }[];
}

type Variant =
  | 'no events'
  | 'events, no lock (unsafe: the cost of the lock)'
  | 'events, exclusive lock (before)'
  | 'events, shared lock'
  | 'events, shared + readers';
type Shape = 'one statement' | 'two statements';

export const WRITERS = 8;
const READERS = 2;

const WRITE = `INSERT INTO "bench_notes" ("note") VALUES ($1) RETURNING "id", "version", "note"`;
const SHAPE = {
  fields: [
    { key: 'id', column: 'id' },
    { key: 'note', column: 'note' },
  ],
  owners: [],
};
const EVENT = (lock: string): string => `
  INSERT INTO "restsmith_events" ("type", "at", "owners", "actor", "event")
  SELECT 'notes.created', $1::text, NULL, NULL, $2::text FROM (SELECT ${lock}(${COMMIT_ORDER_LOCK})) AS "commit_order"`;

export async function concurrentWriters(url: string, seconds = 3, flushMs = 1): Promise<WritersResult> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  for (const statement of EVENT_TABLES.postgres) await setup.query(statement);
  await setup.query(`CREATE TABLE IF NOT EXISTS "bench_notes" (
    "id" BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "note" TEXT NOT NULL, "version" INTEGER NOT NULL DEFAULT 1)`);
  await setup.query(`CREATE OR REPLACE FUNCTION bench_flush() RETURNS trigger AS $$
    BEGIN PERFORM pg_sleep(${flushMs / 1000}); RETURN NULL; END $$ LANGUAGE plpgsql`);
  await setup.query(`DROP TRIGGER IF EXISTS bench_flush ON "bench_notes"`);
  if (flushMs > 0) {
    await setup.query(`CREATE TRIGGER bench_flush AFTER INSERT ON "bench_notes"
      FOR EACH STATEMENT EXECUTE FUNCTION bench_flush()`);
  }
  await setup.end();
  const pool = new pg.Pool({ connectionString: url, max: WRITERS });
  // the cluster stopped under an idle connection (at the end of a run) is no error of the measurement
  pool.on('error', () => undefined);
  const readers = openPostgres(url, READERS);
  const feed = new EventFeed(
    readers,
    [{ resource: 'notes', types: ['notes.created'], read: { public: true } }],
    'admin',
    '7d',
  );
  const variants: WritersResult['variants'] = [];
  try {
    const all: Variant[] = [
      'no events',
      'events, no lock (unsafe: the cost of the lock)',
      'events, exclusive lock (before)',
      'events, shared lock',
      'events, shared + readers',
    ];
    for (const shape of ['one statement', 'two statements'] as const) {
      for (const variant of all) {
        const result = await run(pool, variant, shape, seconds, variant.endsWith('readers') ? feed : undefined);
        const reads =
          result.pagesPerSecond === undefined
            ? ''
            : `; ${READERS} readers: ${result.pagesPerSecond.toFixed(0)} pages/s, p99 ${result.pageP99Ms?.toFixed(1)} ms`;
        console.log(
          `  ${WRITERS} writers, ${shape}, ${variant}: ${result.perSecond.toFixed(0)} commits/s, p99 ${result.p99Ms.toFixed(1)} ms${reads}`,
        );
        variants.push({ variant, shape, ...result });
      }
    }
  } finally {
    await pool.end();
    await readers.close();
  }
  return { writers: WRITERS, seconds, flushMs, variants };
}

async function run(
  pool: pg.Pool,
  variant: Variant,
  shape: Shape,
  seconds: number,
  feed: EventFeed | undefined,
): Promise<Omit<WritersResult['variants'][number], 'variant' | 'shape'>> {
  const lock = variant.includes('exclusive')
    ? 'pg_advisory_xact_lock'
    : variant.includes('no lock')
      ? 'abs' // a function of the key that locks nothing
      : 'pg_advisory_xact_lock_shared';
  const logged = loggedWrite(WRITE.replace('$1', ':note'), 'notes', 'created', SHAPE)
    .replaceAll('pg_advisory_xact_lock_shared', lock)
    .replace(':note', '$1')
    .replace('CAST(:event_at AS text)', 'CAST($2 AS text)')
    .replace('CAST(:event_actor AS text)', 'CAST($3 AS text)');
  const event = EVENT(lock);
  const until = Date.now() + seconds * 1000;
  const times: number[] = [];
  const pages: number[] = [];
  const write = async (n: number): Promise<void> => {
    const at = new Date().toISOString();
    if (variant === 'no events') {
      if (shape === 'one statement') await pool.query(WRITE, [`n${n}`]);
      else await inTransaction(pool, [[WRITE, [`n${n}`]]]);
    } else if (shape === 'one statement') await pool.query(logged, [`n${n}`, at, null]);
    else
      await inTransaction(pool, [
        [WRITE, [`n${n}`]],
        [event, [at, `{"note":"n${n}"}`]],
      ]);
  };
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let n = 0; Date.now() < until; n += 1) {
      const begun = performance.now();
      await write(w * 1_000_000 + n);
      times.push(performance.now() - begun);
    }
  });
  const following = (feed === undefined ? [] : Array.from({ length: READERS })).map(async () => {
    let after = 0;
    const visibility = feed?.visibility({ subject: 'root', roles: ['admin'] }, new Set(['notes.created']));
    while (feed !== undefined && visibility !== undefined && Date.now() < until) {
      const begun = performance.now();
      const page = await feed.page(visibility, after, 100);
      pages.push(performance.now() - begun);
      after = Number(page.nextCursor ?? page.events.at(-1)?.seq ?? after);
    }
  });
  await Promise.all([...writers, ...following]);
  const p99 = (list: number[]): number => list.sort((a, b) => a - b)[Math.floor(list.length * 0.99)] ?? NaN;
  return {
    perSecond: times.length / seconds,
    p99Ms: p99(times),
    ...(feed !== undefined && { pagesPerSecond: pages.length / seconds, pageP99Ms: p99(pages) }),
  };
}

async function inTransaction(pool: pg.Pool, statements: [string, unknown[]][]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const [text, values] of statements) await client.query(text, values);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

// `tsx bench/writers.ts [postgres url of an empty database] [seconds] [flushMs]`: this part alone; without a URL, on
// a throwaway cluster as the bench starts one (bench/postgres.ts)
if (process.argv[1]?.endsWith('writers.ts') === true) {
  const [given, seconds, flush] = process.argv.slice(2);
  const cluster = given === undefined || given === '-' ? await startCluster() : undefined;
  try {
    if (cluster !== undefined) await sql(cluster.url('postgres'), 'CREATE DATABASE writers');
    const url = cluster?.url('writers') ?? given ?? '';
    if (cluster !== undefined) console.log(`PostgreSQL ${cluster.version}, fsync off, on its own core`);
    await concurrentWriters(url, Number(seconds ?? 3), Number(flush ?? 1));
  } finally {
    cluster?.stop();
  }
}
