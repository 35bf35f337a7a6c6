import { writeFileSync } from 'node:fs';
import { median, type WrkResult } from './lib.js';
import type { Speed } from './generator-speed.js';
import type { Paging } from './scale.js';

export interface Measured {
  name: string;
  target: number;
  generated: WrkResult[];
  baseline: WrkResult[];
  hello: WrkResult[];
}

interface Report {
  machine: string;
  date: string;
  command: string;
  method: string;
  results: Measured[];
  rss: { generated: number; baseline: number };
  speed: Speed[];
  paging: Paging[];
}

const rps = (runs: readonly WrkResult[]): number => median(runs.map((r) => r.requestsPerSecond));
const p99 = (runs: readonly WrkResult[]): number => median(runs.map((r) => r.p99Ms));
/** the ratio of generated to baseline, the median of each round's own ratio */
const ratio = (m: Measured): number =>
  median(m.generated.map((g, i) => g.requestsPerSecond / (m.baseline[i]?.requestsPerSecond ?? NaN)));
const verdict = (ok: boolean): string => (ok ? 'met' : '**not met**');
const rounds = (m: Measured): string =>
  m.generated.map((g, i) => (g.requestsPerSecond / (m.baseline[i]?.requestsPerSecond ?? NaN)).toFixed(2)).join(', ');

/** bench/RESULTS.md: the machine, the method, every table, and whether each target is met. */
export function report(path: string, r: Report): void {
  const hello = r.results[0] === undefined ? NaN : rps(r.results[0].hello);
  const rssRatio = r.rss.generated / r.rss.baseline;
  const lines = [
    '# Benchmark results',
    '',
    `Measured ${r.date} on ${r.machine}, with \`${r.command}\`.`,
    `Method: ${r.method}. Ratios compare servers measured in the same round; machines here are noisy, so read ratios, not absolute numbers.`,
    '',
    '## Server throughput',
    '',
    '| test | generated req/s | baseline req/s | generated / baseline | per round | target | p99 generated | p99 baseline |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |',
    ...r.results.map(
      (m) =>
        `| ${m.name} | ${rps(m.generated).toFixed(0)} | ${rps(m.baseline).toFixed(0)} | ${ratio(m).toFixed(2)}× | ${rounds(m)} | ≥ ${m.target}× (${verdict(ratio(m) >= m.target)}) | ${p99(m.generated).toFixed(2)} ms | ${p99(m.baseline).toFixed(2)} ms |`,
    ),
    '',
    `The limit, a node:http hello world: ${hello.toFixed(0)} req/s; the baseline's GET item is ${(rps(r.results[0]?.baseline ?? []) / hello).toFixed(2)}× of it, the generated server's ${(rps(r.results[0]?.generated ?? []) / hello).toFixed(2)}×.`,
    '',
    `Peak RSS over a round: generated ${r.rss.generated.toFixed(0)} MiB, baseline ${r.rss.baseline.toFixed(0)} MiB: ${rssRatio.toFixed(2)}× (target ≤ 1.2×, ${verdict(rssRatio <= 1.2)}).`,
    '',
    '## Generator speed',
    '',
    '| resources | cold generate | no-op regenerate | target |',
    '| ---: | ---: | ---: | --- |',
    ...r.speed.map(
      (s) =>
        `| ${s.resources} | ${(s.coldMs / 1000).toFixed(2)} s | ${s.noopMs === undefined ? '' : `${(s.noopMs / 1000).toFixed(2)} s`} | ${
          s.resources === 100
            ? `cold ≤ 5 s (${verdict(s.coldMs <= 5000)}), no-op ≤ 1.5 s (${verdict((s.noopMs ?? Infinity) <= 1500)})`
            : ''
        } |`,
    ),
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
