import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { measure, median, startServer, wrk, type Server } from './lib.js';
import { seedPostgres, sql, startCluster } from './postgres.js';
import type { Load } from './rounds.js';
import { seed } from './seed.js';
import { writeScripts } from './scripts.js';
import { concurrentWriters, type WritersResult } from './writers.js';

/** The cost of `events` (issue #17): POST and PATCH with events on, against the same server without. */
export interface EventsCost {
  /** per test: CPU per request of the server with events ÷ without, per round (target ≤ 1.3×), on SQLite */
  ratios: Ratios;
  /**
   * the same on PostgreSQL, and PostgreSQL's own CPU per request with events ÷ without; and `writers`: commits per
   * second of 8 concurrent writers with events and without (SPEC §10 Scale of the feed, bench/writers.ts)
   */
  postgres: { version: string; ratios: Ratios; database: Ratios; writers?: WritersResult };
  /** the server's CPU time per second with 1,000 idle streams open, and with none, in ms (median of rounds) */
  idle: { streams: number; withStreamsMs: number; withoutMs: number };
}

type Ratios = Record<'POST' | 'PATCH', number[]>;
type Kind = 'plain' | 'events';

const STREAMS = 1000;

/**
 * Generates bench/definition.yaml twice, as it is and with `events: {}`, seeds each with `rows` posts, and measures
 * POST and PATCH on both in each round, alternating which server goes first, on SQLite and then on a throwaway
 * PostgreSQL cluster (a database each, seeded with the same rows). Then it opens 1,000 streams on the
 * events server and measures its CPU time over `idleSeconds` idle seconds, against as many with none.
 */
export async function eventsCost(
  root: string,
  work: string,
  rows: number,
  rounds: number,
  load: Load,
  env: Record<string, string>,
  token: string,
  idleSeconds = 10,
): Promise<EventsCost> {
  const projects = { plain: join(work, 'events-off'), events: join(work, 'events-on') };
  const definition = readFileSync(join(root, 'bench/definition.yaml'), 'utf8');
  writeFileSync(join(work, 'events.yaml'), `${definition}\nevents: {}\n`);
  const servers: Record<Kind, () => Promise<Server>> = {
    plain: async () => noServer(),
    events: async () => noServer(),
  };
  const scripts: Record<Kind, Record<string, string>> = { plain: {}, events: {} };
  const ids: Partial<Record<Kind, { posts: string[]; articles: string[] }>> = {};
  for (const kind of ['plain', 'events'] as const) {
    const dir = projects[kind];
    const yaml = kind === 'plain' ? join(root, 'bench/definition.yaml') : join(work, 'events.yaml');
    execFileSync(process.execPath, ['bin/restsmith.js', 'generate', yaml, '--out', dir], {
      cwd: root,
      stdio: 'ignore',
    });
    execFileSync(process.execPath, [join(root, 'node_modules/typescript7/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: dir,
      stdio: 'inherit',
    });
    const serverEnv = { ...env, DATABASE_URL: `sqlite:${join(dir, 'data/bench.db')}` };
    const migrated = await startServer('migrate', ['dist/main.js'], dir, serverEnv, '/healthz');
    await migrated.stop();
    const scriptDir = join(work, `scripts-${kind}`);
    mkdirSync(scriptDir, { recursive: true });
    ids[kind] = seed(join(dir, 'data/bench.db'), rows);
    scripts[kind] = writeScripts(scriptDir, ids[kind], token);
    servers[kind] = () => startServer(kind, ['dist/main.js'], dir, serverEnv, '/healthz');
  }

  const ratios = await onServers('', servers, scripts, rounds, load);
  const postgres = await onPostgres(projects, env, ids, scripts, rounds, load);
  const result: EventsCost = {
    ratios: ratios.server,
    postgres,
    idle: { streams: STREAMS, withStreamsMs: 0, withoutMs: 0 },
  };
  result.idle = await idleStreams(await servers.events(), idleSeconds);
  console.log(
    `${STREAMS} idle streams: ${result.idle.withStreamsMs.toFixed(1)} ms CPU per second, ${result.idle.withoutMs.toFixed(1)} with none`,
  );
  return result;
}

/** POST and PATCH on both servers in each round, alternating which goes first; the ratios of events on ÷ off. */
async function onServers(
  label: string,
  servers: Record<Kind, () => Promise<Server>>,
  scripts: Record<Kind, Record<string, string>>,
  rounds: number,
  load: Load,
  databaseCpuMs?: () => number,
): Promise<{ server: Ratios; database: Ratios }> {
  const ratios = { server: { POST: [], PATCH: [] } as Ratios, database: { POST: [], PATCH: [] } as Ratios };
  for (let round = 1; round <= rounds; round += 1) {
    const cost = { plain: { POST: 0, PATCH: 0 }, events: { POST: 0, PATCH: 0 } };
    const database = { plain: { POST: 0, PATCH: 0 }, events: { POST: 0, PATCH: 0 } };
    const order = round % 2 === 1 ? (['plain', 'events'] as const) : (['events', 'plain'] as const);
    for (const kind of order) {
      const server = await servers[kind]();
      try {
        for (const [test, script] of [
          ['POST', scripts[kind].post],
          ['PATCH', scripts[kind].patch],
        ] as const) {
          wrk(server.url, load.warmup, load.connections, script);
          const measured = measure(
            server,
            () => wrk(server.url, load.seconds, load.connections, script),
            databaseCpuMs,
          );
          if (measured.non2xx > 0) throw new Error(`${kind} ${test} answered ${measured.non2xx} non-2xx responses`);
          cost[kind][test] = measured.cpuUsPerRequest;
          database[kind][test] = measured.databaseCpuUsPerRequest ?? 0;
        }
      } finally {
        await server.stop();
      }
    }
    for (const test of ['POST', 'PATCH'] as const) {
      const ratio = cost.events[test] / cost.plain[test];
      ratios.server[test].push(ratio);
      ratios.database[test].push(database.events[test] / database.plain[test]);
      const db =
        databaseCpuMs === undefined
          ? ''
          : `; PostgreSQL ${database.plain[test].toFixed(1)} → ${database.events[test].toFixed(1)} µs`;
      console.log(
        `  events ${label}round ${round}: ${test.padEnd(5)} ${cost.plain[test].toFixed(1)} µs CPU/request without events, ${cost.events[test].toFixed(1)} with: ${ratio.toFixed(2)}×${db}`,
      );
    }
  }
  for (const test of ['POST', 'PATCH'] as const) {
    console.log(
      `events on over off, ${label}${test}, CPU per request: ${median(ratios.server[test]).toFixed(2)}× (target ≤ 1.3×)`,
    );
  }
  return ratios;
}

/** The same servers on a throwaway PostgreSQL cluster: a database each, migrated and seeded with the same rows. */
async function onPostgres(
  projects: Record<Kind, string>,
  env: Record<string, string>,
  ids: Partial<Record<Kind, { posts: string[]; articles: string[] }>>,
  scripts: Record<Kind, Record<string, string>>,
  rounds: number,
  load: Load,
): Promise<EventsCost['postgres']> {
  const cluster = await startCluster();
  try {
    const servers: Partial<Record<Kind, () => Promise<Server>>> = {};
    for (const kind of ['plain', 'events'] as const) {
      const seeded = ids[kind];
      if (seeded === undefined) throw new Error(`${kind} was not seeded`);
      await sql(cluster.url('postgres'), `CREATE DATABASE ${kind}`);
      const serverEnv = { ...env, DATABASE_URL: cluster.url(kind) };
      const migrated = await startServer('migrate', ['dist/main.js'], projects[kind], serverEnv, '/healthz');
      await migrated.stop();
      await seedPostgres(cluster.url(kind), seeded);
      servers[kind] = () => startServer(kind, ['dist/main.js'], projects[kind], serverEnv, '/healthz');
    }
    const { plain, events } = servers;
    if (plain === undefined || events === undefined) throw new Error('the servers were not made');
    const ratios = await onServers('on PostgreSQL, ', { plain, events }, scripts, rounds, load, cluster.cpuMs);
    await sql(cluster.url('postgres'), `CREATE DATABASE writers`);
    console.log('concurrent writers on PostgreSQL (commits per second):');
    const writers = await concurrentWriters(cluster.url('writers'));
    return { version: cluster.version, ratios: ratios.server, database: ratios.database, writers };
  } finally {
    cluster.stop();
  }
}

/** The server's CPU per idle second with no stream, then with STREAMS streams open (opened, then left idle). */
async function idleStreams(server: Server, seconds: number): Promise<EventsCost['idle']> {
  const idle = async (): Promise<number> => {
    const before = server.cpuMs();
    await new Promise((wait) => setTimeout(wait, seconds * 1000));
    return (server.cpuMs() - before) / seconds;
  };
  const open: ClientRequest[] = [];
  try {
    const withoutMs = await idle();
    await Promise.all(
      Array.from(
        { length: STREAMS },
        () =>
          new Promise<void>((opened, failed) => {
            const r = request(`${server.url}/events/stream`, { agent: false }, (response) => {
              response.once('data', () => opened());
              response.on('error', () => undefined);
            });
            r.on('error', failed);
            r.end();
            open.push(r);
          }),
      ),
    );
    // the first heartbeat and poll after the opening settle
    await new Promise((wait) => setTimeout(wait, 2000));
    const withStreamsMs = await idle();
    return { streams: STREAMS, withStreamsMs, withoutMs };
  } finally {
    for (const r of open) r.destroy();
    await server.stop();
  }
}

function noServer(): never {
  throw new Error('the server was not built');
}
