/**
 * `npm run bench`: the generated server against the hand-written baseline given the same protections (the judge,
 * baseline/protections.mjs), and the generated server with its protections off against the bare baseline, with a
 * node:http hello world, in the same rounds, servers in alternation, on a pinned core with wrk on another; the same
 * tests on PostgreSQL against the baseline ported to `pg` (on-postgres.ts); then the costs of include and events, the
 * generator's own speed, and reads at scale (scale.ts). Writes bench/RESULTS.md (or --out). `--smoke` runs one short
 * round of each (CI); `--only scale` (or a comma-separated list of PARTS) runs some parts only and writes
 * .bench/RESULTS-partial.md unless --out says where. `--only pooler`, a part no full run includes, measures
 * DATABASE_POOLER=transaction against session on PostgreSQL (GET item and PATCH, bench/pooler.ts).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { generatorSpeed } from './generator-speed.js';
import { hostileClients } from './hostile.js';
import { eventsCost } from './events.js';
import { includeCost } from './include.js';
import { ensureWrk, LOAD_CPU, measure, median, startServer, wrk, CORES, type Server } from './lib.js';
import { onPostgres } from './on-postgres.js';
import { poolerCost } from './pooler.js';
import { cpuRatios, historyLines, report, type Measured, type Report } from './report.js';
import { noResults, orderOf, runTests, type ServerName, type Test } from './rounds.js';
import { scale } from './scale.js';
import { baselineCursorAfter, generatedCursorAfter, seed } from './seed.js';
import { writeScripts } from './scripts.js';

const { values: options } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    rounds: { type: 'string' },
    only: { type: 'string' },
  },
});
const PARTS = ['sqlite', 'postgres', 'include', 'events', 'generator', 'scale', 'hostile'] as const;
/** parts a full run leaves out: asked for by name */
const OPTIONAL = ['pooler'] as const;
const KNOWN: readonly string[] = [...PARTS, ...OPTIONAL];
const only = (options.only ?? PARTS.join(',')).split(',').map((part) => part.trim());
const unknown = only.filter((part) => !KNOWN.includes(part));
if (unknown.length > 0) throw new Error(`--only takes ${KNOWN.join(', ')}, not ${unknown.join(', ')}`);
const runs = (part: (typeof PARTS)[number] | (typeof OPTIONAL)[number]): boolean => only.includes(part);
const everything = PARTS.every(runs);
const smoke = options.smoke ?? false;
const ROOT = resolve(import.meta.dirname, '..');
const WORK = join(ROOT, '.bench');
const SECRET = 'a-benchmark-secret-of-32-bytes-or-more';
// this machine's noise (±20% run to run) is larger than the gaps measured: many short rounds, medians of ratios
const ROUNDS = Number(options.rounds ?? (smoke ? 1 : 5));
const SECONDS = smoke ? 1 : 5;
const WARMUP = smoke ? 1 : 2;
const CONNECTIONS = 32;
const ROWS = smoke ? 1_000 : 10_000;

ensureWrk();
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
const run = (command: string, args: string[], cwd = ROOT): void => {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
};

/**
 * The generated server runs as generated, rate limiting on, with a limit this load never reaches (wrk's requests
 * all come from one address); the protected baseline has the same limit. The unprotected run switches the limit and
 * the timeouts off (the request log is off for every server: LOG_LEVEL=warn, lib.ts).
 */
const env = { JWT_SECRET: SECRET, RATE_LIMIT_MAX: '1000000000' };
const unprotectedEnv = { ...env, RATE_LIMIT_MAX: '0', CONNECTION_TIMEOUT: '0', REQUEST_TIMEOUT: '0' };
const token = await new SignJWT({ roles: [] })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('bench')
  .setExpirationTime('2h')
  .sign(new TextEncoder().encode(SECRET));
const load = { warmup: WARMUP, seconds: SECONDS, connections: CONNECTIONS };
const result: Report = {
  machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${CORES} cores, Node ${process.version}`,
  date: new Date().toISOString().slice(0, 10),
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  method: '',
};

let built: string | undefined;
/** The generated benchmark API, generated and built on first use (the server tests and the hostile clients use it). */
function generatedProject(): string {
  if (built !== undefined) return built;
  console.log('generating and building the benchmark API…');
  const generated = join(WORK, 'generated');
  run(process.execPath, ['bin/restsmith.js', 'generate', 'bench/definition.yaml', '--out', generated]);
  run(process.execPath, [join(ROOT, 'node_modules/typescript7/bin/tsc'), '-p', 'tsconfig.build.json'], generated);
  built = generated;
  return generated;
}

if (runs('sqlite') || runs('postgres') || runs('pooler')) {
  // the generated server: generate, build, migrate an empty database, then seed it and copy it for the others
  const generated = generatedProject();
  const generatedDb = join(generated, 'data/bench.db');
  const migrated = await startServer(
    'migrate',
    ['dist/main.js'],
    generated,
    { ...env, DATABASE_URL: `sqlite:${generatedDb}` },
    '/healthz',
  );
  await migrated.stop();
  const ids = seed(generatedDb, ROWS);
  const copy = (name: string): string => {
    const file = join(WORK, `${name}.db`);
    copyFileSync(generatedDb, file);
    return file;
  };
  const [baselineDb, protectedDb, unprotectedDb] = ['baseline', 'protected', 'unprotected'].map(copy);

  const scripts = writeScripts(WORK, ids, token);
  const deepId = ids.posts[Math.floor(ids.posts.length * 0.9)] ?? '';
  const isGenerated = (server: Server): boolean => server.name === 'generated' || server.name === 'unprotected';
  const tests: Test[] = [
    { name: 'GET item (random ids)', path: '/', script: scripts.getItem, target: 1 },
    { name: 'GET list, first page of 20', path: '/posts?limit=20', target: 1 },
    {
      name: 'GET list, deep page (cursor at 90%)',
      path: async (server) =>
        `/posts?limit=20&cursor=${isGenerated(server) ? await generatedCursorAfter(server.url, deepId) : baselineCursorAfter(deepId)}`,
      target: 1,
    },
    { name: 'POST create', path: '/', script: scripts.post, target: 1 },
    { name: 'PATCH', path: '/', script: scripts.patch, target: 1 },
    { name: 'GET item with a bearer token', path: '/', script: scripts.authItem, target: 1 },
  ];

  if (runs('sqlite')) {
    const baseline = (name: string, extra: Record<string, string>) => (): Promise<Server> =>
      startServer(name, ['bench/baseline/server.mjs'], ROOT, { JWT_SECRET: SECRET, ...extra }, '/posts?limit=1');
    const servers: Record<ServerName | 'hello', () => Promise<Server>> = {
      generated: () =>
        startServer(
          'generated',
          ['dist/main.js'],
          generated,
          { ...env, DATABASE_URL: `sqlite:${generatedDb}` },
          '/healthz',
        ),
      unprotected: () =>
        startServer(
          'unprotected',
          ['dist/main.js'],
          generated,
          { ...unprotectedEnv, DATABASE_URL: `sqlite:${unprotectedDb}` },
          '/healthz',
        ),
      baseline: baseline('baseline', { DATABASE_FILE: baselineDb ?? '' }),
      // the baseline with the generated server's protections (bench/baseline/protections.mjs), and its limit
      protected: baseline('protected', {
        DATABASE_FILE: protectedDb ?? '',
        PROTECTIONS: '1',
        RATE_LIMIT_MAX: env.RATE_LIMIT_MAX,
      }),
      hello: () => startServer('hello', ['bench/baseline/hello.mjs'], ROOT, {}),
    };
    const results: Measured[] = noResults(tests);
    const rss: { generated: number[]; baseline: number[] } = { generated: [], baseline: [] };
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.log(`round ${round} of ${ROUNDS}`);
      for (const name of orderOf(round)) {
        const server = await servers[name]();
        try {
          await runTests(server, name, tests, results, load);
          if (name === 'generated' || name === 'baseline') rss[name].push(server.peakRssMiB());
        } finally {
          await server.stop();
        }
      }
      const hello = await servers.hello();
      try {
        wrk(hello.url, WARMUP, CONNECTIONS);
        const measured = measure(hello, () => wrk(hello.url, SECONDS, CONNECTIONS));
        results[0]?.hello.push(measured);
        console.log(
          `  ${'hello'.padEnd(12)} ${'node:http hello world'.padEnd(40)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s ${measured.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/request`,
        );
      } finally {
        await hello.stop();
      }
    }
    // CI's smoke round prints these with no threshold: one short round on a shared machine is noise
    printRatios('SQLite', results);
    result.sqlite = { results, rss: { generated: median(rss.generated), baseline: median(rss.baseline) } };
  }
  if (runs('postgres')) {
    result.postgres = await onPostgres({
      root: ROOT,
      generated,
      env,
      unprotectedEnv,
      ids,
      tests,
      rounds: ROUNDS,
      load,
    });
    printRatios(`PostgreSQL ${result.postgres.version}`, result.postgres.results);
  }
  if (runs('pooler')) {
    // the statements a request runs most: one record read, one record written
    const pooled = tests.filter((t) => t.name.startsWith('GET item (') || t.name === 'PATCH');
    result.pooler = await poolerCost({ generated, env, ids, tests: pooled, rounds: ROUNDS, load });
  }
}

if (runs('include')) {
  console.log('the cost of include…');
  result.include = await includeCost(ROOT, WORK, ROWS, ROUNDS, load);
}
if (runs('events')) {
  console.log('the cost of events…');
  result.events = await eventsCost(ROOT, WORK, ROWS, ROUNDS, load, env, token, smoke ? 2 : 10);
}
if (runs('generator')) {
  console.log('generator speed…');
  result.speed = await generatorSpeed(ROOT, WORK, smoke);
  for (const s of result.speed) {
    const seconds = (ms: number | undefined): string => (ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`);
    console.log(
      `  ${s.resources} resources: cold ${seconds(s.coldMs)}` +
        (s.noopMs === undefined
          ? ''
          : `, no-op ${seconds(s.noopMs)}, one field added ${seconds(s.editMs)}, the same saved under --watch ${seconds(s.watchEditMs)}`),
    );
  }
}
if (runs('scale')) {
  console.log('reads at scale…');
  const sizes = (process.env.BENCH_SCALE_SIZES ?? (smoke ? '1000,10000' : '10000,1000000')).split(',').map(Number);
  result.scale = await scale({
    root: ROOT,
    work: WORK,
    sizes,
    // two sizes a round, six reads each: three rounds bound the part to minutes
    rounds: Math.min(ROUNDS, 3),
    load,
    databases: ['SQLite', 'PostgreSQL'],
  });
}

if (runs('hostile')) {
  console.log('32 hostile clients…');
  const hostile = await hostileClients(generatedProject(), WORK, smoke ? ROWS : 1_000_000, smoke ? 3 : 10, env);
  console.log(
    `  ${hostile.rows} rows, ${hostile.seconds} s: p99 /healthz ${hostile.healthP99Ms.toFixed(1)} ms, GET item ${hostile.itemP99Ms.toFixed(1)} ms; hostile requests ${hostile.requests}, refused (429/503) ${hostile.refused}`,
  );
  result.hostile = hostile;
}

result.method = `${ROUNDS} round(s); per test ${WARMUP}s warm-up then ${SECONDS}s measured with wrk -t1 -c${CONNECTIONS} on its own core, servers pinned to core 0, in alternation (each first in turn); ${ROWS} seeded rows; medians of rounds; on PostgreSQL (a throwaway cluster, fsync off) its processes pinned to core ${LOAD_CPU} with wrk, every server with a pool of ${process.env.DATABASE_POOL_SIZE || 10} connections`;
// a full run goes into the history of runs, newest first (below its header)
if (everything && !smoke && options.out === undefined) {
  const history = join(ROOT, 'bench/history.md');
  const text = readFileSync(history, 'utf8').split('\n');
  const first = text.findIndex((line) => /^\| \d/.test(line));
  text.splice(
    first < 0 ? text.length : first,
    0,
    ...historyLines(`new (${new Date().toISOString().slice(0, 16)})`, result),
  );
  writeFileSync(history, text.join('\n'));
  console.log(`added this run to ${history}: number it`);
}

const out = options.out ?? (everything ? join(ROOT, 'bench/RESULTS.md') : join(WORK, 'RESULTS-partial.md'));
report(out, ROOT, result);
console.log(`wrote ${out}`);

function printRatios(title: string, measured: readonly Measured[]): void {
  console.log(`${title}, CPU per request, efficiency (theirs ÷ ours; above 1: the generated server is cheaper):`);
  for (const m of measured) {
    const pair = (ours: ServerName, theirs: ServerName): string => {
      const ratios = cpuRatios(m, ours, theirs);
      return `${median(ratios).toFixed(2)}× (${ratios.map((r) => r.toFixed(2)).join(', ')})`;
    };
    console.log(
      `  ${m.name.padEnd(40)} judge ${pair('generated', 'protected')}  protections off ÷ bare ${pair('unprotected', 'baseline')}`,
    );
  }
}
