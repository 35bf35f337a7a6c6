import { measure, median, startServer, wrk, type Measurement } from './lib.js';
import { seedPostgres, sql, startCluster } from './postgres.js';
import type { Load, Test } from './rounds.js';

/** DATABASE_POOLER=session and =transaction, and =transaction with DATABASE_STATEMENT_TIMEOUT=0 (no SET LOCAL) */
export const MODES = ['session', 'transaction', 'untimed'] as const;
export type PoolerMode = (typeof MODES)[number];
const ENV: Record<PoolerMode, Record<string, string>> = {
  session: { DATABASE_POOLER: 'session' },
  transaction: { DATABASE_POOLER: 'transaction' },
  untimed: { DATABASE_POOLER: 'transaction', DATABASE_STATEMENT_TIMEOUT: '0' },
};
const LABEL: Record<PoolerMode, string> = {
  session: 'session',
  transaction: 'transaction',
  untimed: 'transaction, DATABASE_STATEMENT_TIMEOUT=0',
};

/** The cost of DATABASE_POOLER=transaction: per test, each mode's runs. */
export interface PoolerCost {
  version: string;
  tests: { name: string; runs: Record<PoolerMode, Measurement[]> }[];
}

/**
 * `npm run bench -- --only pooler` (not part of a full run): the generated server on a throwaway PostgreSQL, connected
 * directly, with DATABASE_POOLER=session (statements named, prepared once per connection; the timeout set when a
 * connection starts) and DATABASE_POOLER=transaction (unnamed statements, parsed and planned at each run; each
 * statement of a request in a transaction of its own that sets the timeout, its BEGIN, the statement and the COMMIT
 * pipelined), and the same with DATABASE_STATEMENT_TIMEOUT=0 (unnamed statements, no SET LOCAL: each statement of a
 * request alone), in alternation, each first in turn, `tests` each round. What it measures is the server's own way of
 * talking to the database, not a pooler's: the CPU per request of the server and of PostgreSQL, and the latency.
 */
export async function poolerCost(o: {
  generated: string;
  env: Record<string, string>;
  ids: { posts: string[]; articles: string[] };
  tests: readonly Test[];
  rounds: number;
  load: Load;
}): Promise<PoolerCost> {
  console.log('DATABASE_POOLER: starting a throwaway cluster, migrating and seeding…');
  const cluster = await startCluster();
  try {
    await sql(cluster.url('postgres'), 'CREATE DATABASE pooled');
    const env = { ...o.env, DATABASE_URL: cluster.url('pooled') };
    const migrated = await startServer('migrate', ['dist/main.js'], o.generated, env, '/healthz');
    await migrated.stop();
    await seedPostgres(cluster.url('pooled'), o.ids);
    const tests = o.tests.map((test) => ({
      name: test.name,
      runs: { session: [], transaction: [], untimed: [] } as Record<PoolerMode, Measurement[]>,
    }));
    for (let round = 1; round <= o.rounds; round += 1) {
      console.log(`DATABASE_POOLER round ${round} of ${o.rounds}`);
      const order = MODES.map((_, i) => MODES[(i + round) % MODES.length] ?? 'session');
      for (const mode of order) {
        const server = await startServer(mode, ['dist/main.js'], o.generated, { ...env, ...ENV[mode] }, '/healthz');
        try {
          for (const [i, test] of o.tests.entries()) {
            if (typeof test.path !== 'string') throw new Error(`${test.name}: the pooler part takes fixed paths`);
            const url = server.url + test.path;
            wrk(url, o.load.warmup, o.load.connections, test.script);
            const measured = measure(
              server,
              () => wrk(url, o.load.seconds, o.load.connections, test.script),
              cluster.cpuMs,
            );
            if (measured.non2xx > 0)
              throw new Error(`${mode}: ${test.name} answered ${measured.non2xx} non-2xx responses`);
            tests[i]?.runs[mode].push(measured);
            console.log(
              `  ${mode.padEnd(12)} ${test.name.padEnd(24)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s ${measured.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/request  database ${(measured.databaseCpuUsPerRequest ?? NaN).toFixed(1)} µs  p99 ${measured.p99Ms.toFixed(2)} ms`,
            );
          }
        } finally {
          await server.stop();
        }
      }
    }
    return { version: cluster.version, tests };
  } finally {
    cluster.stop();
  }
}

/** Per round: `mode`'s figure ÷ session's (above 1: it costs more). */
const ratios = (runs: Record<PoolerMode, Measurement[]>, mode: PoolerMode, of: (m: Measurement) => number): number[] =>
  runs[mode].map((m, i) => of(m) / of(runs.session[i] ?? m));

/** The report's lines for the part. */
export function poolerTable(p: PoolerCost): string[] {
  const x = (value: number): string => `${value.toFixed(2)}×`;
  const server = (m: Measurement): number => m.cpuUsPerRequest;
  const database = (m: Measurement): number => m.databaseCpuUsPerRequest ?? NaN;
  const p99 = (m: Measurement): number => m.p99Ms;
  const rps = (m: Measurement): number => m.requestsPerSecond;
  const med = (runs: readonly Measurement[], of: (m: Measurement) => number): number => median(runs.map(of));
  return [
    `PostgreSQL ${p.version}, connected directly (no pooler): the generated server's CPU per request and PostgreSQL's,`,
    'each against DATABASE_POOLER=session, per round (medians of rounds).',
    '',
    '| test | DATABASE_POOLER | server µs | ÷ session | PostgreSQL µs | ÷ session | req/s | p99 ms |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...p.tests.flatMap(({ name, runs }) =>
      MODES.map(
        (mode) =>
          `| ${name} | ${LABEL[mode]} | ${med(runs[mode], server).toFixed(1)} | ${x(median(ratios(runs, mode, server)))} | ${med(runs[mode], database).toFixed(1)} | ${x(median(ratios(runs, mode, database)))} | ${med(runs[mode], rps).toFixed(0)} | ${med(runs[mode], p99).toFixed(2)} |`,
      ),
    ),
  ];
}
