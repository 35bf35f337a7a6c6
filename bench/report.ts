import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median, type Measurement } from './lib.js';
import type { EventsCost } from './events.js';
import type { IncludeCost } from './include.js';
import type { Speed } from './generator-speed.js';
import type { OnPostgres } from './on-postgres.js';
import { poolerTable, type PoolerCost } from './pooler.js';
import type { ServerName } from './rounds.js';
import type { HostileCost } from './hostile.js';
import type { Scale } from './scale.js';

export interface Measured {
  name: string;
  target: number;
  /** the generated server as generated (rate limit, timeouts, request log at LOG_LEVEL) */
  generated: Measurement[];
  /** the same server with its protections off (RATE_LIMIT_MAX=0, CONNECTION_TIMEOUT=0, REQUEST_TIMEOUT=0) */
  unprotected: Measurement[];
  /** the bare hand-written baseline (bench/baseline/server.mjs) */
  baseline: Measurement[];
  /** the baseline with the generated server's protections (bench/baseline/protections.mjs) */
  protected: Measurement[];
  hello: Measurement[];
}

export interface Report {
  machine: string;
  date: string;
  command: string;
  method: string;
  sqlite?: { results: Measured[]; rss: { generated: number; baseline: number } };
  postgres?: OnPostgres;
  speed?: Speed[];
  include?: IncludeCost;
  events?: EventsCost;
  scale?: Scale;
  hostile?: HostileCost;
  pooler?: PoolerCost;
}

/** The two pairs each test is judged by: ours ÷ theirs by CPU per request, per round. */
const PAIRS = [
  { ours: 'generated', theirs: 'protected' },
  { ours: 'unprotected', theirs: 'baseline' },
] as const satisfies readonly { ours: ServerName; theirs: ServerName }[];

const cpu = (runs: readonly Measurement[]): number => median(runs.map((r) => r.cpuUsPerRequest));
/** per round: their CPU per request over ours (above 1: ours is cheaper) */
export const cpuRatios = (m: Measured, ours: ServerName, theirs: ServerName): number[] =>
  m[ours].map((g, i) => (m[theirs][i]?.cpuUsPerRequest ?? NaN) / g.cpuUsPerRequest);
const x = (value: number): string => `${value.toFixed(2)}×`;
const verdict = (ok: boolean): string => (ok ? 'met' : '**not met**');
const rounds = (values: readonly number[]): string => values.map((v) => v.toFixed(2)).join(', ');

/** One line a test: both pairs, their efficiency against the target, the rounds of the judge. */
function serverTable(results: readonly Measured[]): string[] {
  return [
    '| test | generated µs | baseline + protections µs | **efficiency** (judge) | per round | protections off µs | bare baseline µs | efficiency | target |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |',
    ...results.map((m) => {
      const [judge, second] = PAIRS.map((p) => cpuRatios(m, p.ours, p.theirs));
      const a = median(judge ?? []);
      const b = median(second ?? []);
      return `| ${m.name} | ${cpu(m.generated).toFixed(1)} | ${cpu(m.protected).toFixed(1)} | **${x(a)}** | ${rounds(judge ?? [])} | ${cpu(m.unprotected).toFixed(1)} | ${cpu(m.baseline).toFixed(1)} | ${x(b)} | ≥ ${m.target}×: judge ${verdict(a >= m.target)}, off ${verdict(b >= m.target)} |`;
    }),
  ];
}

/** The generated server's deep page against its first, per round, by CPU per request. */
export function deepOverFirst(results: readonly Measured[]): number {
  const first = results.find((m) => m.name.startsWith('GET list, first'));
  const deep = results.find((m) => m.name.startsWith('GET list, deep'));
  if (first === undefined || deep === undefined) return NaN;
  return median(deep.generated.map((d, i) => d.cpuUsPerRequest / (first.generated[i]?.cpuUsPerRequest ?? NaN)));
}

/** The targets other than the server pairs, one line each. */
function otherTargets(r: Report): string[] {
  const lines: string[] = [];
  const add = (target: string, figure: string, ok: boolean): void => {
    lines.push(`| ${target} | ${figure} | ${verdict(ok)} |`);
  };
  if (r.sqlite !== undefined) {
    const deep = deepOverFirst(r.sqlite.results);
    add('deep page ≤ 1.1× the first (SQLite)', x(deep), deep <= 1.1);
    const rss = r.sqlite.rss.generated / r.sqlite.rss.baseline;
    add(
      'peak RSS ≤ 1.2× the bare baseline',
      `${x(rss)} (${r.sqlite.rss.generated.toFixed(0)} against ${r.sqlite.rss.baseline.toFixed(0)} MiB)`,
      rss <= 1.2,
    );
  }
  if (r.postgres !== undefined) {
    const deep = deepOverFirst(r.postgres.results);
    add('deep page ≤ 1.1× the first (PostgreSQL)', x(deep), deep <= 1.1);
  }
  if (r.include !== undefined) {
    const ratio = median(r.include.ratios);
    add(
      'include ≤ 2× a plain list (`include=writer,remarks`, bench/relations.yaml)',
      `${x(ratio)} (rounds ${rounds(r.include.ratios)})`,
      ratio <= 2,
    );
  }
  if (r.events !== undefined) {
    const e = r.events;
    const medians = [e.ratios.POST, e.ratios.PATCH, e.postgres.ratios.POST, e.postgres.ratios.PATCH].map(median);
    const [sp, sa, pp, pa] = medians.map((v) => x(v ?? NaN));
    add(
      'events ≤ 1.3× on writes (`events: {}` against none)',
      `SQLite POST ${sp}, PATCH ${sa}; PostgreSQL POST ${pp}, PATCH ${pa}`,
      Math.max(...medians) <= 1.3,
    );
    lines.push(
      `| ${e.idle.streams} idle event streams | ${e.idle.withStreamsMs.toFixed(1)} ms of CPU a second (${e.idle.withoutMs.toFixed(1)} with none) | |`,
    );
  }
  if (r.hostile !== undefined) {
    const h = r.hostile;
    add(
      `32 hostile clients at ${h.rows.toLocaleString('en')} rows for ${h.seconds} s (unindexed contains and sorts): p99 of another client's /healthz and GET item ≤ 100 ms (SQLite)`,
      `${h.healthP99Ms.toFixed(1)} ms, ${h.itemP99Ms.toFixed(1)} ms; ${h.refused} of ${h.requests} hostile requests answered 429/503 with Retry-After`,
      Math.max(h.healthP99Ms, h.itemP99Ms) <= 100,
    );
  }
  const hundred = r.speed?.find((s) => s.resources === 100);
  if (hundred !== undefined) {
    const s = (ms: number | undefined): string => (ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`);
    add(
      'generator, 100 resources: cold ≤ 3 s, no-op ≤ 0.5 s, one field added ≤ 1 s (also under `--watch`)',
      `${s(hundred.coldMs)}, ${s(hundred.noopMs)}, ${s(hundred.editMs)} (${s(hundred.watchEditMs)})`,
      hundred.coldMs <= 3000 &&
        (hundred.noopMs ?? Infinity) <= 500 &&
        (hundred.editMs ?? Infinity) <= 1000 &&
        (hundred.watchEditMs ?? Infinity) <= 1000,
    );
  }
  return lines.length === 0 ? [] : ['| target | measured | |', '| --- | --- | --- |', ...lines];
}

function scaleTable(s: Scale): string[] {
  const small = s.sizes[0] ?? 0;
  const large = s.sizes[s.sizes.length - 1] ?? 0;
  const n = (size: number): string => size.toLocaleString('en');
  return [
    `| database | read | µs at ${n(small)} | µs at ${n(large)} | ${n(large)} ÷ ${n(small)} | per round | target ≤ 1.3× |`,
    '| --- | --- | ---: | ---: | ---: | --- | --- |',
    ...s.rows.map((row) => {
      if (row.skipped !== undefined) return `| ${row.database} | ${row.test} | | | | | ${row.skipped} |`;
      const ratio = median(row.ratios);
      return `| ${row.database} | ${row.test} | ${(row.cpuUs[0] ?? NaN).toFixed(1)} | ${(row.cpuUs[row.cpuUs.length - 1] ?? NaN).toFixed(1)} | ${x(ratio)} | ${rounds(row.ratios)} | ${verdict(ratio <= 1.3)} |`;
    }),
    '',
    `Seeding (one INSERT … SELECT a table, from a recursive CTE on SQLite and generate_series on PostgreSQL, then ANALYZE): ${Object.entries(
      s.seedSeconds,
    )
      .map(([what, seconds]) => `${what} posts ${seconds.toFixed(1)} s`)
      .join(', ')}.`,
  ];
}

/** A hand-kept part of RESULTS.md (bench/<name>.md): kept across runs, printed as it is. */
const kept = (root: string, name: string): string[] => {
  const path = join(root, 'bench', name);
  return existsSync(path) ? readFileSync(path, 'utf8').trimEnd().split('\n') : [];
};

/**
 * The history's lines for this run: the judge's ratios (SQLite, then PostgreSQL) and include, then the same for the
 * generated server with its protections off against the bare baseline.
 */
export function historyLines(run: string, r: Report): string[] {
  const include = r.include === undefined ? '' : x(median(r.include.ratios));
  return PAIRS.map((pair, i) => {
    const ratios = (results: readonly Measured[] | undefined): string[] =>
      ['GET item', 'GET list, first', 'GET list, deep', 'POST', 'PATCH'].map((prefix) => {
        const m = results?.find((t) => t.name.startsWith(prefix));
        return m === undefined ? '' : x(median(cpuRatios(m, pair.ours, pair.theirs)));
      });
    const against = i === 0 ? 'the baseline with the same protections' : 'protections off against the bare baseline';
    return `| ${run} | ${r.date} | ${ratios(r.sqlite?.results).join(' | ')} | ${ratios(r.postgres?.results).join(' | ')} | ${include} | ${against} |`;
  });
}

/** bench/RESULTS.md: the current figures and targets, the method, a create's costs, and the past runs. */
export function report(path: string, root: string, r: Report): void {
  const hello = r.sqlite?.results[0]?.hello ?? [];
  const lines = [
    '# Benchmark results',
    '',
    `Measured ${r.date} on ${r.machine}, with \`${r.command}\` (method below). The judge: the generated server, as`,
    'generated, against a hand-written Fastify server given the same protections (rate limit, request log, timeouts),',
    'by CPU time per request; beside it, the generated server with its protections off against the bare hand-written',
    'server. Both must be ≥ 1.0× (above 1: the generated server costs less CPU a request).',
    '',
  ];
  if (r.sqlite !== undefined) {
    lines.push('## SQLite', '', ...serverTable(r.sqlite.results), '');
    if (hello.length > 0)
      lines.push(
        `The floor, a node:http hello world: ${cpu(hello).toFixed(1)} µs of CPU a request (${median(hello.map((h) => h.requestsPerSecond)).toFixed(0)} req/s).`,
        '',
      );
  }
  if (r.postgres !== undefined) {
    lines.push(`## PostgreSQL ${r.postgres.version}`, '', ...serverTable(r.postgres.results), '');
  }
  if (r.pooler !== undefined) lines.push('## DATABASE_POOLER=transaction', '', ...poolerTable(r.pooler), '');
  const others = otherTargets(r);
  if (others.length > 0) lines.push('## Other targets', '', ...others, '');
  if (r.scale !== undefined) {
    lines.push(
      '## At scale',
      '',
      'bench/scale.yaml (posts, a writer each, 20 posts a writer at every size) seeded at each size; the generated',
      "server's CPU per request for each read (on PostgreSQL with the database's own CPU added: what grows with a",
      'table grows there), the larger size against the smaller:',
      '',
      ...scaleTable(r.scale),
      '',
      ...kept(root, 'scale-notes.md'),
      '',
    );
  }
  lines.push(...kept(root, 'create-cost.md'), '');
  lines.push(
    '## Method',
    '',
    `${r.method}.`,
    '',
    "CPU per request: the server process's user + system time over each measured wrk run (`/proc/<pid>/stat`), divided",
    "by the requests wrk completed; efficiency is the other server's CPU per request ÷ the generated server's, per round,",
    'and the median of rounds is judged. The servers: the generated server of bench/definition.yaml as generated',
    '(its rate limit on, with a limit this load never reaches; timeouts on; LOG_LEVEL=warn, so no request lines),',
    'the same with RATE_LIMIT_MAX=0, CONNECTION_TIMEOUT=0 and REQUEST_TIMEOUT=0; bench/baseline/server.mjs (Fastify 5,',
    'JSON Schemas, better-sqlite3 or `pg` with statements prepared once) bare, and with PROTECTIONS=1',
    '(bench/baseline/protections.mjs: @fastify/rate-limit with its headers, pino at the same level, the same',
    "timeouts). The baseline has no idempotency keys, ETags, request ids or body checks beyond Fastify's. Each",
    'server serves its own copy of the same seeded database; on PostgreSQL its own CPU is measured too (the',
    'postmaster and its children). `npm run bench -- --only scale` (or any of sqlite, postgres, include, events,',
    'generator, scale, hostile, comma-separated) runs some parts only and writes .bench/RESULTS-partial.md;',
    '`--only pooler`, which a full run leaves out, measures DATABASE_POOLER=transaction against session (bench/pooler.ts).',
    '',
  );
  lines.push(...kept(root, 'history.md'), '');
  writeFileSync(path, lines.join('\n'));
}
