import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOAD_CPU, startServer } from './lib.js';
import { seed } from './seed.js';

/** Bounded cost (SPEC §10): what one client sees while 32 others send the most expensive listings. */
export interface HostileCost {
  rows: number;
  seconds: number;
  /** GET /healthz and GET /posts/{id}, one after the other from one client, while the load runs */
  healthP99Ms: number;
  itemP99Ms: number;
  /** the hostile requests answered, and how many of them were not 200 (429 and 503 with Retry-After) */
  requests: number;
  refused: number;
}

/** the most expensive listings the bench API takes: an unindexed contains, unindexed sorts */
const PATHS = ['/posts?body[contains]=zzz&limit=5', '/posts?sort=-views&limit=5', '/posts?sort=-title&limit=100'];

/**
 * Seeds `rows` posts into a database of the generated bench API, serves it, and for `seconds` sends the PATHS in a
 * loop from wrk's 32 connections (each request from one of 32 addresses, through X-Forwarded-For, to a server
 * that trusts the loopback proxy), while this process asks /healthz and one post in turn and records each latency.
 */
export async function hostileClients(
  generated: string,
  work: string,
  rows: number,
  seconds: number,
  env: Record<string, string>,
): Promise<HostileCost> {
  const dir = join(work, `hostile-${rows}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'hostile.db');
  const serverEnv = { ...env, DATABASE_URL: `sqlite:${file}`, RATE_LIMIT_MAX: '0', TRUST_PROXY: 'loopback' };
  await (await startServer('migrate', ['dist/main.js'], generated, serverEnv, '/healthz')).stop();
  const id = seed(file, rows).posts[Math.floor(rows / 2)] ?? '';
  const script = join(dir, 'hostile.lua');
  writeFileSync(
    script,
    `local paths = { ${PATHS.map((p) => JSON.stringify(p)).join(', ')} }\n` +
      'request = function()\n' +
      '  local headers = { ["x-forwarded-for"] = "10.0.0." .. math.random(32) }\n' +
      '  return wrk.format("GET", paths[math.random(#paths)], headers)\n' +
      'end\n',
  );
  const server = await startServer('hostile', ['dist/main.js'], generated, serverEnv, '/healthz');
  try {
    const load = spawn('taskset', ['-c', LOAD_CPU, 'wrk', '-t1', '-c32', `-d${seconds}s`, '-s', script, server.url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    load.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((done) => load.once('exit', done));
    await new Promise((wait) => setTimeout(wait, 500));
    const took: Record<'health' | 'item', number[]> = { health: [], item: [] };
    const end = Date.now() + (seconds - 1) * 1000;
    for (let i = 0; Date.now() < end; i += 1) {
      const which = i % 2 === 0 ? 'health' : 'item';
      const start = performance.now();
      const response = await fetch(`${server.url}${which === 'health' ? '/healthz' : `/posts/${id}`}`);
      await response.arrayBuffer();
      took[which].push(performance.now() - start);
    }
    await exited;
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    const refused = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    return { rows, seconds, healthP99Ms: p99(took.health), itemP99Ms: p99(took.item), requests, refused };
  } finally {
    await server.stop();
  }
}

const p99 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? NaN;
