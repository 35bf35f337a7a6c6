import { writeFileSync } from 'node:fs';
import { median, type Measurement } from './lib.js';
import type { EventsCost } from './events.js';
import type { IncludeCost } from './include.js';
import type { Speed } from './generator-speed.js';
import type { OnPostgres } from './on-postgres.js';
import type { Paging } from './scale.js';

export interface Measured {
  name: string;
  target: number;
  generated: Measurement[];
  baseline: Measurement[];
  /** the baseline with the generated server's protections (bench/baseline/protections.mjs): shown, not judged */
  protected: Measurement[];
  hello: Measurement[];
}

interface Report {
  machine: string;
  date: string;
  command: string;
  method: string;
  results: Measured[];
  postgres: OnPostgres;
  rss: { generated: number; baseline: number };
  speed: Speed[];
  paging: Paging[];
  include: IncludeCost;
  events: EventsCost;
}

const rps = (runs: readonly Measurement[]): number => median(runs.map((r) => r.requestsPerSecond));
const p99 = (runs: readonly Measurement[]): number => median(runs.map((r) => r.p99Ms));
const cpu = (runs: readonly Measurement[]): number => median(runs.map((r) => r.cpuUsPerRequest));
const databaseCpu = (runs: readonly Measurement[]): number => median(runs.map((r) => r.databaseCpuUsPerRequest ?? NaN));
/** per round: the baseline's CPU per request over the generated server's (above 1: the generated one is cheaper) */
export const cpuRatios = (m: Measured, against: 'baseline' | 'protected' = 'baseline'): number[] =>
  m.generated.map((g, i) => (m[against][i]?.cpuUsPerRequest ?? NaN) / g.cpuUsPerRequest);
const rpsRatio = (m: Measured): number =>
  median(m.generated.map((g, i) => g.requestsPerSecond / (m.baseline[i]?.requestsPerSecond ?? NaN)));
/** per round: the baseline's server + database CPU per request over the generated server's */
const totalRatio = (m: Measured): number =>
  median(
    m.generated.map((g, i) => {
      const b = m.baseline[i];
      return b === undefined
        ? NaN
        : (b.cpuUsPerRequest + (b.databaseCpuUsPerRequest ?? NaN)) /
            (g.cpuUsPerRequest + (g.databaseCpuUsPerRequest ?? NaN));
    }),
  );
const verdict = (ok: boolean): string => (ok ? 'met' : '**not met**');

const cpuTable = (results: readonly Measured[]): string[] => [
  '| test | generated µs/request | baseline µs/request | efficiency | per round | target |',
  '| --- | ---: | ---: | ---: | --- | --- |',
  ...results.map((m) => {
    const ratios = cpuRatios(m);
    return `| ${m.name} | ${cpu(m.generated).toFixed(1)} | ${cpu(m.baseline).toFixed(1)} | ${median(ratios).toFixed(2)}× | ${ratios.map((x) => x.toFixed(2)).join(', ')} | ≥ ${m.target}× (${verdict(median(ratios) >= m.target)}) |`;
  }),
];

/** Against the baseline given the same protections: what the generated server costs beyond them (not the judge) */
const protectedTable = (results: readonly Measured[]): string[] => [
  '| test | generated µs/request | baseline with protections µs/request | efficiency | per round |',
  '| --- | ---: | ---: | ---: | --- |',
  ...results.map((m) => {
    const ratios = cpuRatios(m, 'protected');
    return `| ${m.name} | ${cpu(m.generated).toFixed(1)} | ${cpu(m.protected).toFixed(1)} | ${median(ratios).toFixed(2)}× | ${ratios.map((x) => x.toFixed(2)).join(', ')} |`;
  }),
];

const protectedText = (server: string): string[] => [
  'The bare baseline has none of the protections the generated server has by default. The same baseline given them,',
  'as a careful person adds them to Fastify (bench/baseline/protections.mjs: @fastify/rate-limit with its',
  'X-RateLimit headers, pino logging each request at the level the generated server runs at, the timeouts of an idle',
  'connection, a request and its headers), measured in the same rounds. It still has no idempotency keys and no body',
  `checks beyond Fastify's. It runs as ${server} with PROTECTIONS=1, shown beside the judge,`,
  'not in its place:',
];

const throughputTable = (results: readonly Measured[]): string[] => [
  '| test | generated req/s | baseline req/s | generated / baseline | p99 generated | p99 baseline |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  ...results.map(
    (m) =>
      `| ${m.name} | ${rps(m.generated).toFixed(0)} | ${rps(m.baseline).toFixed(0)} | ${rpsRatio(m).toFixed(2)}× | ${p99(m.generated).toFixed(2)} ms | ${p99(m.baseline).toFixed(2)} ms |`,
  ),
];

/** PostgreSQL's own CPU per request beside each server's: costlier SQL shifts work into the database */
const databaseTable = (results: readonly Measured[]): string[] => [
  '| test | PostgreSQL µs/request, generated | PostgreSQL µs/request, baseline | server + PostgreSQL, efficiency |',
  '| --- | ---: | ---: | ---: |',
  ...results.map(
    (m) =>
      `| ${m.name} | ${databaseCpu(m.generated).toFixed(1)} | ${databaseCpu(m.baseline).toFixed(1)} | ${totalRatio(m).toFixed(2)}× |`,
  ),
];

/** The generated server's deep page against its first, per round, by CPU per request. */
export function deepOverFirst(results: readonly Measured[]): number {
  const first = results.find((m) => m.name.startsWith('GET list, first'));
  const deep = results.find((m) => m.name.startsWith('GET list, deep'));
  if (first === undefined || deep === undefined) return NaN;
  return median(deep.generated.map((d, i) => d.cpuUsPerRequest / (first.generated[i]?.cpuUsPerRequest ?? NaN)));
}

/** bench/RESULTS.md: the machine, the method, every table, and whether each target is met. */
export function report(path: string, r: Report): void {
  const hello = r.results[0] === undefined ? NaN : rps(r.results[0].hello);
  const helloCpu = r.results[0] === undefined ? NaN : cpu(r.results[0].hello);
  const rssRatio = r.rss.generated / r.rss.baseline;
  const lines = [
    '# Benchmark results',
    '',
    `Measured ${r.date} on ${r.machine}, with \`${r.command}\`.`,
    `Method: ${r.method}. Ratios compare servers measured in the same round; machines here are noisy, so read ratios, not absolute numbers.`,
    '',
    '## CPU per request (the judge)',
    '',
    "The server process's user + system CPU time over each measured run (`/proc/<pid>/stat`), divided by the requests",
    "wrk completed. Efficiency = the baseline's CPU per request ÷ the generated server's, per round; the median of rounds",
    'is judged against the target.',
    '',
    ...cpuTable(r.results),
    '',
    ...protectedText('bench/baseline/server.mjs'),
    '',
    ...protectedTable(r.results),
    '',
    `Deep page against the first (generated, CPU per request): ${deepOverFirst(r.results).toFixed(2)}× (target ≤ 1.1×, ${verdict(deepOverFirst(r.results) <= 1.1)}).`,
    '',
    '## Throughput',
    '',
    ...throughputTable(r.results),
    '',
    `The limit, a node:http hello world: ${hello.toFixed(0)} req/s at ${helloCpu.toFixed(1)} µs CPU per request; the baseline's GET item is ${(rps(r.results[0]?.baseline ?? []) / hello).toFixed(2)}× of its rate, the generated server's ${(rps(r.results[0]?.generated ?? []) / hello).toFixed(2)}×.`,
    '',
    `Peak RSS over a round: generated ${r.rss.generated.toFixed(0)} MiB, baseline ${r.rss.baseline.toFixed(0)} MiB: ${rssRatio.toFixed(2)}× (target ≤ 1.2×, ${verdict(rssRatio <= 1.2)}).`,
    '',
    `## On PostgreSQL ${r.postgres.version}`,
    '',
    'The same tests against PostgreSQL, the generated server against the baseline ported to `pg`',
    "(bench/baseline/server-pg.mjs: a `pg.Pool` as large as the generated server's, 10 connections unless",
    'DATABASE_POOL_SIZE says otherwise, and named prepared statements), each serving its own copy of the same seeded',
    'database. CPU per request of the server process, judged as above:',
    '',
    ...cpuTable(r.postgres.results),
    '',
    "PostgreSQL's own CPU per request over the same runs (the postmaster and every process it forked, from",
    '`/proc/<pid>/stat`; background work such as autovacuum included), and the efficiency of server and database',
    'together:',
    '',
    ...databaseTable(r.postgres.results),
    '',
    ...protectedText('bench/baseline/server-pg.mjs'),
    '',
    ...protectedTable(r.postgres.results),
    '',
    ...throughputTable(r.postgres.results),
    '',
    '## The cost of include (relations, issue #15)',
    '',
    'One generated server (bench/relations.yaml): `GET /stories?limit=20` against the same listing with',
    '`include=writer,remarks` (a to-one and a to-many relation: two more queries; a page embeds 20 writers and about 20',
    'remarks, so its response holds three times the records), by CPU per request, per round.',
    '',
    '| round | plain µs/request | with include µs/request | ratio |',
    '| ---: | ---: | ---: | ---: |',
    ...r.include.ratios.map(
      (ratio, i) =>
        `| ${i + 1} | ${(r.include.plainCpuUs[i] ?? NaN).toFixed(1)} | ${(r.include.includeCpuUs[i] ?? NaN).toFixed(1)} | ${ratio.toFixed(2)}× |`,
    ),
    '',
    `Median: ${median(r.include.ratios).toFixed(2)}× (target ≤ 2×, ${verdict(median(r.include.ratios) <= 2)}).`,
    '',
    '## The cost of events (issue #17)',
    '',
    'bench/definition.yaml generated twice, as it is and with `events: {}` (each write and its event in one',
    'transaction; on PostgreSQL one statement), each seeded alike, on SQLite and on PostgreSQL: POST and PATCH by the',
    "server's CPU per request, per round, with PostgreSQL's own beside; then 1,000 idle streams.",
    '',
    `| round | POST with ÷ without | PATCH with ÷ without | on PostgreSQL ${r.events.postgres.version}: POST | PATCH | PostgreSQL's own CPU: POST | PATCH |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.events.ratios.POST.map((post, i) => {
      const { ratios, database } = r.events.postgres;
      const cells = [
        post,
        r.events.ratios.PATCH[i],
        ratios.POST[i],
        ratios.PATCH[i],
        database.POST[i],
        database.PATCH[i],
      ];
      return `| ${i + 1} | ${cells.map((c) => `${(c ?? NaN).toFixed(2)}×`).join(' | ')} |`;
    }),
    '',
    `Medians of the server's CPU per request: on SQLite POST ${median(r.events.ratios.POST).toFixed(2)}×, PATCH ` +
      `${median(r.events.ratios.PATCH).toFixed(2)}×; on PostgreSQL POST ${median(r.events.postgres.ratios.POST).toFixed(2)}×, ` +
      `PATCH ${median(r.events.postgres.ratios.PATCH).toFixed(2)}× (target ≤ 1.3×, ` +
      `${verdict(Math.max(...(['POST', 'PATCH'] as const).flatMap((t) => [median(r.events.ratios[t]), median(r.events.postgres.ratios[t])])) <= 1.3)}). ` +
      `${r.events.idle.streams} idle streams: ${r.events.idle.withStreamsMs.toFixed(1)} ms of CPU per second, ` +
      `${r.events.idle.withoutMs.toFixed(1)} with none.`,
    '',
    '## Generator speed',
    '',
    '| resources | cold generate | no-op regenerate | one field added, regenerate | the same, saved under `--watch` | target |',
    '| ---: | ---: | ---: | ---: | ---: | --- |',
    ...r.speed.map((s) => {
      const seconds = (ms: number | undefined): string => (ms === undefined ? '' : `${(ms / 1000).toFixed(2)} s`);
      const targets =
        s.resources === 100
          ? `cold ≤ 3 s (${verdict(s.coldMs <= 3000)}), no-op ≤ 0.5 s (${verdict((s.noopMs ?? Infinity) <= 500)}), edit ≤ 1 s (${verdict((s.editMs ?? Infinity) <= 1000)}; under --watch ${verdict((s.watchEditMs ?? Infinity) <= 1000)})`
          : '';
      return `| ${s.resources} | ${seconds(s.coldMs)} | ${seconds(s.noopMs)} | ${seconds(s.editMs)} | ${seconds(s.watchEditMs)} | ${targets} |`;
    }),
    '',
    '## Keyset paging at scale',
    '',
    '| rows | page 1 | deep page | deep / first | target |',
    '| ---: | ---: | ---: | ---: | --- |',
    ...r.paging.map(
      (p) =>
        `| ${p.rows.toLocaleString('en')} | ${p.firstMs.toFixed(2)} ms | ${p.deepMs.toFixed(2)} ms | ${(p.deepMs / p.firstMs).toFixed(2)}× | ${
          p.rows >= 1_000_000 ? `≤ 2× (${verdict(p.deepMs / p.firstMs <= 2)})` : ''
        } |`,
    ),
    '',
  ];
  writeFileSync(path, lines.join('\n'));
}
