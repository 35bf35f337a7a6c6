/**
 * `npm run bench`: the generated server against a hand-written baseline (the judge), the same baseline given the
 * generated server's protections (shown beside it: baseline/protections.mjs) and a node:http hello world, in the
 * same run, servers in alternation, on a pinned core with wrk on another; the same tests on PostgreSQL against the
 * baseline ported to `pg` (on-postgres.ts); then the generator's own speed, and keyset paging at scale. Writes
 * bench/RESULTS.md (or --out). `--smoke` runs one short round of each (CI).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
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
import { cpuRatios, report, type Measured } from './report.js';
import { orderOf, runTests, type Test } from './rounds.js';
import { scale } from './scale.js';
import { baselineCursorAfter, generatedCursorAfter, seed } from './seed.js';
import { writeScripts } from './scripts.js';

const { values: options } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, out: { type: 'string' }, rounds: { type: 'string' } },
});
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

// the generated server: generate, build, migrate an empty database, then seed it and copy it for the baseline
console.log('generating and building the benchmark API…');
const generated = join(WORK, 'generated');
run(process.execPath, ['bin/restsmith.js', 'generate', 'bench/definition.yaml', '--out', generated]);
run(process.execPath, [join(ROOT, 'node_modules/typescript7/bin/tsc'), '-p', 'tsconfig.build.json'], generated);
const generatedDb = join(generated, 'data/bench.db');
/**
 * The generated server runs as generated, rate limiting on, with a limit this load never reaches (wrk's requests
 * all come from one address); the baseline has none: the limiter's work is counted against the generated server.
 */
const env = { JWT_SECRET: SECRET, RATE_LIMIT_MAX: '1000000000' };
const migrated = await startServer(
  'migrate',
  ['dist/main.js'],
  generated,
  { ...env, DATABASE_URL: `sqlite:${generatedDb}` },
  '/healthz',
);
await migrated.stop();
const ids = seed(generatedDb, ROWS);
const baselineDb = join(WORK, 'baseline.db');
copyFileSync(generatedDb, baselineDb);
const protectedDb = join(WORK, 'protected.db');
copyFileSync(generatedDb, protectedDb);

const token = await new SignJWT({ roles: [] })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('bench')
  .setExpirationTime('2h')
  .sign(new TextEncoder().encode(SECRET));
const scripts = writeScripts(WORK, ids, token);
const deepId = ids.posts[Math.floor(ids.posts.length * 0.9)] ?? '';

const tests: Test[] = [
  { name: 'GET item (random ids)', path: '/', script: scripts.getItem, target: 1 },
  { name: 'GET list, first page of 20', path: '/posts?limit=20', target: 1 },
  {
    name: 'GET list, deep page (cursor at 90%)',
    path: async (server) =>
      `/posts?limit=20&cursor=${server.name === 'generated' ? await generatedCursorAfter(server.url, deepId) : baselineCursorAfter(deepId)}`,
    target: 1,
  },
  { name: 'POST create', path: '/', script: scripts.post, target: 1 },
  { name: 'PATCH', path: '/', script: scripts.patch, target: 1 },
  { name: 'GET item with a bearer token', path: '/', script: scripts.authItem, target: 1 },
];

const servers: Record<'generated' | 'baseline' | 'protected' | 'hello', () => Promise<Server>> = {
  generated: () =>
    startServer(
      'generated',
      ['dist/main.js'],
      generated,
      { ...env, DATABASE_URL: `sqlite:${generatedDb}` },
      '/healthz',
    ),
  baseline: () =>
    startServer(
      'baseline',
      ['bench/baseline/server.mjs'],
      ROOT,
      { JWT_SECRET: SECRET, DATABASE_FILE: baselineDb },
      '/posts?limit=1',
    ),
  // the baseline with the generated server's protections (bench/baseline/protections.mjs), and its limit
  protected: () =>
    startServer(
      'protected',
      ['bench/baseline/server.mjs'],
      ROOT,
      { JWT_SECRET: SECRET, DATABASE_FILE: protectedDb, PROTECTIONS: '1', RATE_LIMIT_MAX: env.RATE_LIMIT_MAX },
      '/posts?limit=1',
    ),
  hello: () => startServer('hello', ['bench/baseline/hello.mjs'], ROOT, {}),
};

const results: Measured[] = tests.map((t) => ({
  name: t.name,
  target: t.target,
  generated: [],
  baseline: [],
  protected: [],
  hello: [],
}));
const rss: { generated: number[]; baseline: number[] } = { generated: [], baseline: [] };
const load = { warmup: WARMUP, seconds: SECONDS, connections: CONNECTIONS };

for (let round = 1; round <= ROUNDS; round += 1) {
  console.log(`round ${round} of ${ROUNDS}`);
  const order = orderOf(round);
  for (const name of order) {
    const server = await servers[name]();
    try {
      await runTests(server, name, tests, results, load);
      if (name !== 'protected') rss[name].push(server.peakRssMiB());
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
printRatios('CPU per request', results);
printRatios('CPU per request', results, 'protected');
const postgres = await onPostgres({ root: ROOT, generated, env, ids, tests, rounds: ROUNDS, load });
printRatios(`PostgreSQL ${postgres.version}, CPU per request`, postgres.results);
printRatios(`PostgreSQL ${postgres.version}, CPU per request`, postgres.results, 'protected');

console.log('the cost of include…');
const include = await includeCost(ROOT, WORK, ROWS, ROUNDS, load);

console.log('the cost of events…');
const events = await eventsCost(ROOT, WORK, ROWS, ROUNDS, load, env, token, smoke ? 2 : 10);

console.log('generator speed…');
const speed = await generatorSpeed(ROOT, WORK, smoke);
for (const s of speed) {
  const seconds = (ms: number | undefined): string => (ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`);
  console.log(
    `  ${s.resources} resources: cold ${seconds(s.coldMs)}` +
      (s.noopMs === undefined
        ? ''
        : `, no-op ${seconds(s.noopMs)}, one field added ${seconds(s.editMs)}, the same saved under --watch ${seconds(s.watchEditMs)}`),
  );
}
console.log('keyset paging at scale…');
const paging = await scale(generated, WORK, smoke ? [ROWS] : [10_000, 1_000_000], SECRET);

console.log('32 hostile clients…');
const hostile = await hostileClients(generated, WORK, smoke ? ROWS : 1_000_000, smoke ? 3 : 10, env);
console.log(
  `  ${hostile.rows} rows, ${hostile.seconds} s: p99 /healthz ${hostile.healthP99Ms.toFixed(1)} ms, GET item ${hostile.itemP99Ms.toFixed(1)} ms; hostile requests ${hostile.requests}, refused (429/503) ${hostile.refused}`,
);

const out = options.out ?? join(ROOT, 'bench/RESULTS.md');
report(out, {
  machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${CORES} cores, Node ${process.version}`,
  date: new Date().toISOString().slice(0, 10),
  command: `npm run bench${smoke ? ' -- --smoke' : ''}`,
  method: `${ROUNDS} round(s); per test ${WARMUP}s warm-up then ${SECONDS}s measured with wrk -t1 -c${CONNECTIONS} on its own core, servers pinned to core 0, in alternation; ${ROWS} seeded rows; medians of rounds; on PostgreSQL ${postgres.version} (a throwaway cluster, fsync off), its processes pinned to core ${LOAD_CPU} with wrk, both servers with a pool of ${process.env.DATABASE_POOL_SIZE || 10} connections`,
  results,
  postgres,
  rss: { generated: median(rss.generated), baseline: median(rss.baseline) },
  speed,
  paging,
  include,
  events,
});
console.log(`wrote ${out}`);

function printRatios(
  title: string,
  measured: readonly Measured[],
  against: 'baseline' | 'protected' = 'baseline',
): void {
  const which = against === 'baseline' ? 'baseline' : 'baseline with protections, shown, not judged';
  console.log(`${title}, efficiency (${which} ÷ generated; above 1: the generated server is cheaper):`);
  for (const m of measured) {
    const ratios = cpuRatios(m, against);
    const database = m.generated.some((g) => g.databaseCpuUsPerRequest !== undefined)
      ? `  database µs/request ${median(m.generated.map((g) => g.databaseCpuUsPerRequest ?? NaN)).toFixed(1)} vs ${median(m[against].map((b) => b.databaseCpuUsPerRequest ?? NaN)).toFixed(1)}`
      : '';
    console.log(
      `  ${m.name.padEnd(40)} ${median(ratios).toFixed(2)}×  (rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')})${database}`,
    );
  }
}
