import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { measure, median, startServer, wrk } from './lib.js';
import type { Load } from './rounds.js';

/** The cost of `include` (issue #15): the same listing with and without embedding, on one generated server. */
export interface IncludeCost {
  plainCpuUs: number[];
  includeCpuUs: number[];
  /** per round: CPU per request with include ÷ without (target ≤ 2×) */
  ratios: number[];
}

const PLAIN = '/stories?limit=20';
const INCLUDE = '/stories?limit=20&include=writer,remarks';

/**
 * Generates bench/relations.yaml, seeds 200 writers, `rows` stories (a writer each) and 0, 1 or 2 remarks per story
 * (one on average: a page of 20 stories embeds 20 writers and about 20 remarks), and measures both listings in each
 * round, alternating which goes first. The cost grows with the records embedded, about linearly.
 */
export async function includeCost(
  root: string,
  work: string,
  rows: number,
  rounds: number,
  load: Load,
): Promise<IncludeCost> {
  const dir = join(work, 'relations');
  const run = (args: string[], cwd = root): void => {
    execFileSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  };
  run(['bin/restsmith.js', 'generate', 'bench/relations.yaml', '--out', dir]);
  run([join(root, 'node_modules/typescript7/bin/tsc'), '-p', 'tsconfig.build.json'], dir);
  const file = join(dir, 'data/relations.db');
  const env = {
    JWT_SECRET: 'a-benchmark-secret-of-32-bytes-or-more',
    RATE_LIMIT_MAX: '1000000000',
    DATABASE_URL: `sqlite:${file}`,
  };
  const migrated = await startServer('migrate', ['dist/main.js'], dir, env, '/healthz');
  await migrated.stop();
  seed(file, rows);

  const result: IncludeCost = { plainCpuUs: [], includeCpuUs: [], ratios: [] };
  for (let round = 1; round <= rounds; round += 1) {
    const server = await startServer('generated', ['dist/main.js'], dir, env, '/healthz');
    try {
      const cost = (path: string): number => {
        wrk(server.url + path, load.warmup, load.connections);
        const measured = measure(server, () => wrk(server.url + path, load.seconds, load.connections));
        if (measured.non2xx > 0) throw new Error(`${path} answered ${measured.non2xx} non-2xx responses`);
        return measured.cpuUsPerRequest;
      };
      const order = round % 2 === 1 ? [PLAIN, INCLUDE] : [INCLUDE, PLAIN];
      const [first, second] = order.map(cost) as [number, number];
      const [plain, include] = round % 2 === 1 ? [first, second] : [second, first];
      result.plainCpuUs.push(plain);
      result.includeCpuUs.push(include);
      result.ratios.push(include / plain);
      console.log(
        `  include   round ${round}: ${plain.toFixed(1)} µs CPU/request plain, ${include.toFixed(1)} with include=writer,remarks: ${(include / plain).toFixed(2)}×`,
      );
    } finally {
      await server.stop();
    }
  }
  console.log(
    `include=writer,remarks over the plain listing, CPU per request: ${median(result.ratios).toFixed(2)}× (target ≤ 2×)`,
  );
  return result;
}

function seed(file: string, rows: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const now = new Date().toISOString();
  const writer = db.prepare('INSERT INTO writers (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)');
  const story = db.prepare(
    'INSERT INTO stories (id, title, views, writer_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const remark = db.prepare('INSERT INTO remarks (id, text, story_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    const writers = Array.from({ length: 200 }, (_, i) => {
      const id = uuidv7();
      writer.run(id, `Writer ${i}`, now, now);
      return id;
    });
    for (let i = 0; i < rows; i += 1) {
      const id = uuidv7();
      story.run(id, `Story ${i}`, i, writers[i % writers.length], now, now);
      for (let j = 0; j < i % 3; j += 1) remark.run(uuidv7(), `Remark ${j} on story ${i}`, id, now, now);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
