import { measure, wrk, type Server } from './lib.js';
import type { Measured } from './report.js';

/**
 * The servers of a round: the generated server as generated and the baseline with the same protections (the judge),
 * the generated server with its protections off and the bare baseline (the second pair).
 */
export const SERVERS = ['generated', 'protected', 'unprotected', 'baseline'] as const;
export type ServerName = (typeof SERVERS)[number];

/** Round `round`'s order: each server takes each place in turn, so that no place favours one of them. */
export const orderOf = (round: number): ServerName[] =>
  SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length] ?? SERVERS[0]);

export interface Test {
  name: string;
  /** the path, or how to make it for a server (the deep page's cursor is each server's own) */
  path: string | ((server: Server) => Promise<string>);
  script?: string;
  target: number;
}

/** Each test's results, none measured yet: one list per server (and the hello world's), filled by runTests. */
export const noResults = (tests: readonly Test[]): Measured[] =>
  tests.map((t) => ({
    name: t.name,
    target: t.target,
    generated: [],
    unprotected: [],
    baseline: [],
    protected: [],
    hello: [],
  }));

export interface Load {
  warmup: number;
  seconds: number;
  connections: number;
}

/**
 * Every test against one server, each a warm-up then a measured wrk run; each measurement goes to `results` under
 * `name`. Throws on a non-2xx answer. `databaseCpuMs`: the database server's CPU time, measured over the same runs.
 */
export async function runTests(
  server: Server,
  name: ServerName,
  tests: readonly Test[],
  results: Measured[],
  load: Load,
  label: string = name,
  databaseCpuMs?: () => number,
): Promise<void> {
  for (const [i, test] of tests.entries()) {
    const path = typeof test.path === 'string' ? test.path : await test.path(server);
    wrk(server.url + path, load.warmup, load.connections, test.script);
    const measured = measure(
      server,
      () => wrk(server.url + path, load.seconds, load.connections, test.script),
      databaseCpuMs,
    );
    if (measured.non2xx > 0) throw new Error(`${label}: ${test.name} answered ${measured.non2xx} non-2xx responses`);
    results[i]?.[name].push(measured);
    const database =
      measured.databaseCpuUsPerRequest === undefined
        ? ''
        : `  database ${measured.databaseCpuUsPerRequest.toFixed(1)} µs/request`;
    console.log(
      `  ${label.padEnd(12)} ${test.name.padEnd(40)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s ${measured.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/request  p99 ${measured.p99Ms.toFixed(2)} ms${database}`,
    );
  }
}
