import { join } from 'node:path';
import { startServer, type Server } from './lib.js';
import { startCluster, seedPostgres, sql } from './postgres.js';
import type { Measured } from './report.js';
import { noResults, orderOf, runTests, type Load, type ServerName, type Test } from './rounds.js';

export interface OnPostgres {
  /** PostgreSQL's version */
  version: string;
  results: Measured[];
}

/**
 * The same tests on PostgreSQL: a throwaway cluster pinned to the load generator's core, a database the generated
 * server migrates and the bench seeds with the SQLite rows (same ids), a copy of it for the baseline ported to `pg`
 * (bench/baseline/server-pg.mjs) and one for each other server, then rounds in alternation as on SQLite, with
 * PostgreSQL's CPU time beside each server's.
 */
export async function onPostgres(o: {
  root: string;
  /** the generated project, built */
  generated: string;
  /** the generated server's environment (JWT_SECRET, RATE_LIMIT_MAX) */
  env: Record<string, string>;
  /** the same with its protections off */
  unprotectedEnv: Record<string, string>;
  ids: { posts: string[]; articles: string[] };
  tests: readonly Test[];
  rounds: number;
  load: Load;
}): Promise<OnPostgres> {
  console.log('PostgreSQL: starting a throwaway cluster, migrating and seeding…');
  const started = performance.now();
  const cluster = await startCluster();
  try {
    await sql(cluster.url('postgres'), 'CREATE DATABASE generated');
    const generatedEnv = { ...o.env, DATABASE_URL: cluster.url('generated') };
    const migrated = await startServer('migrate', ['dist/main.js'], o.generated, generatedEnv, '/healthz');
    await migrated.stop();
    await seedPostgres(cluster.url('generated'), o.ids);
    // the baseline serves a copy, as on SQLite: each server's POSTs grow its own table
    await sql(cluster.url('postgres'), 'CREATE DATABASE baseline TEMPLATE generated');
    await sql(cluster.url('postgres'), 'CREATE DATABASE protected TEMPLATE generated');
    await sql(cluster.url('postgres'), 'CREATE DATABASE unprotected TEMPLATE generated');

    const baseline = (name: string, env: Record<string, string>) => (): Promise<Server> =>
      startServer(
        name,
        [join('bench', 'baseline', 'server-pg.mjs')],
        o.root,
        { JWT_SECRET: o.env.JWT_SECRET ?? '', ...env },
        '/posts?limit=1',
      );
    const servers: Record<ServerName, () => Promise<Server>> = {
      generated: () => startServer('generated', ['dist/main.js'], o.generated, generatedEnv, '/healthz'),
      unprotected: () =>
        startServer(
          'unprotected',
          ['dist/main.js'],
          o.generated,
          { ...o.unprotectedEnv, DATABASE_URL: cluster.url('unprotected') },
          '/healthz',
        ),
      baseline: baseline('baseline', { DATABASE_URL: cluster.url('baseline') }),
      protected: baseline('protected', {
        DATABASE_URL: cluster.url('protected'),
        PROTECTIONS: '1',
        // the generated server's limit; without one, the baseline's own default (300 a minute, soon refused)
        ...(o.env.RATE_LIMIT_MAX !== undefined && { RATE_LIMIT_MAX: o.env.RATE_LIMIT_MAX }),
      }),
    };
    const results: Measured[] = noResults(o.tests);
    for (let round = 1; round <= o.rounds; round += 1) {
      console.log(`PostgreSQL round ${round} of ${o.rounds}`);
      const order = orderOf(round);
      for (const name of order) {
        const server = await servers[name]();
        try {
          await runTests(server, name, o.tests, results, o.load, `pg ${name}`, cluster.cpuMs);
        } finally {
          await server.stop();
        }
      }
    }
    console.log(`PostgreSQL part: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return { version: cluster.version, results };
  } finally {
    cluster.stop();
  }
}
