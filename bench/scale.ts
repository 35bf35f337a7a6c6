import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { measure, median, startServer, wrk, type Server } from './lib.js';
import { sql, startCluster } from './postgres.js';
import { generatedCursorAfter } from './seed.js';
import type { Load } from './rounds.js';

/**
 * The scale part (issue #57): bench/scale.yaml's posts (a writer each, a trigram index on `body`) at each size, on
 * SQLite and on PostgreSQL; six reads by the server's CPU per request, and each one's cost at the largest size over
 * its cost at the smallest (target ≤ 1.3×: an indexed read should cost about the same at any size).
 */
export interface ScaleRow {
  test: string;
  database: 'SQLite' | 'PostgreSQL';
  /** per size (as in `sizes`), the median over rounds of CPU µs per request (on PostgreSQL, the server's and the
   * database's together); NaN when not run */
  cpuUs: number[];
  /** per round: CPU per request at the largest size ÷ at the smallest */
  ratios: number[];
  /** why the test did not run */
  skipped?: string;
}

export interface Scale {
  sizes: number[];
  rows: ScaleRow[];
  /** seconds to seed each size, per database: `SQLite 1,000,000` → 6.1 */
  seedSeconds: Record<string, number>;
  /** why the trigram row did not run (the generator does not know `index: trigram` yet), or undefined */
  trigramSkipped?: string;
}

/** Seeded row `i`'s id: a valid UUIDv7 whose order is `i`'s, made alike in SQL and in wrk's Lua. */
const POST_ID = '01900000-0000-7000-8000-%012x';
const WRITER_ID = '01900000-0000-7000-9000-%012x';
const idOf = (pattern: string, i: number): string => pattern.replace('%012x', i.toString(16).padStart(12, '0'));
/** each writer has this many posts at every size: the filter `writerId=` matches as many rows at 10k as at 1M */
const POSTS_PER_WRITER = 20;
/** the row whose body's word `contains` looks for: a word of one row only, at every size */
const SOUGHT = 4321;
/**
 * A word only row SOUGHT's body holds, of letters no other body has: each of its trigrams is in one row at every
 * size, where each of a hex word's is in a fixed share of the rows (see bench/RESULTS.md, "At scale").
 */
const RARE = 'quokka';
/** a word of row `i` (8 hex digits of a multiplicative hash; the same in SQL) */
const wordOf = (i: number): string => `w${((i * 2654435761) % 4294967296).toString(16).padStart(8, '0')}`;

interface Target {
  name: string;
  path: (size: number, server: Server) => Promise<string> | string;
  script?: (size: number) => string;
  trigram?: true;
}

const TESTS: readonly Target[] = [
  { name: 'GET item (random ids)', path: () => '/', script: (size) => itemScript(size) },
  { name: 'first page of 20', path: () => '/posts?limit=20' },
  {
    name: 'indexed filter (writerId=, 20 matches)',
    path: (size) => `/posts?limit=20&writerId=${idOf(WRITER_ID, Math.floor(size / POSTS_PER_WRITER / 2))}`,
  },
  {
    name: 'trigram contains (body[contains]=, 1 match, common trigrams)',
    path: () => `/posts?limit=20&body[contains]=${wordOf(SOUGHT)}`,
    trigram: true,
  },
  {
    name: 'trigram contains (body[contains]=, 1 match, rare trigrams)',
    path: () => `/posts?limit=20&body[contains]=${RARE}`,
    trigram: true,
  },
  {
    name: 'deep page (cursor at 90%)',
    path: async (size, server) =>
      `/posts?limit=20&cursor=${await generatedCursorAfter(server.url, idOf(POST_ID, Math.floor(size * 0.9)))}`,
  },
  { name: 'include=writer, first page', path: () => '/posts?limit=20&include=writer' },
];

export async function scale(o: {
  root: string;
  work: string;
  sizes: readonly number[];
  rounds: number;
  load: Load;
  databases: readonly ('SQLite' | 'PostgreSQL')[];
}): Promise<Scale> {
  const dir = join(o.work, 'scale');
  const { trigramSkipped } = generate(o.root, o.work, dir);
  const sizes = [...o.sizes];
  const result: Scale = { sizes, rows: [], seedSeconds: {}, ...(trigramSkipped !== undefined && { trigramSkipped }) };
  const scripts = join(o.work, 'scale-scripts');
  mkdirSync(scripts, { recursive: true });
  // wrk's 32 connections are one client: the rate limit and the caps on listings that scan (a trigram contains is
  // one: see docs/definition.md) are raised past them, so that every request is answered and measured
  const env = {
    JWT_SECRET: 'a-benchmark-secret-of-32-bytes-or-more',
    RATE_LIMIT_MAX: '1000000000',
    DATABASE_SCAN_PER_CLIENT: '64',
    DATABASE_SCAN_QUEUE: '64',
  };
  for (const database of o.databases) {
    const cluster = database === 'PostgreSQL' ? await startCluster() : undefined;
    try {
      // one database per size, migrated by the server and seeded in SQL
      const urls: string[] = [];
      for (const size of sizes) {
        const url =
          cluster === undefined ? `sqlite:${join(dir, 'data', `scale-${size}.db`)}` : cluster.url(`scale_${size}`);
        if (cluster === undefined) rmSync(url.slice('sqlite:'.length), { force: true });
        else await sql(cluster.url('postgres'), `CREATE DATABASE scale_${size}`);
        const migrated = await startServer('migrate', ['dist/main.js'], dir, { ...env, DATABASE_URL: url }, '/healthz');
        await migrated.stop();
        const started = performance.now();
        await (cluster === undefined ? seedSqlite(url.slice('sqlite:'.length), size) : seedPostgres(url, size));
        result.seedSeconds[`${database} ${size.toLocaleString('en')}`] = (performance.now() - started) / 1000;
        console.log(
          `  scale: ${database} seeded with ${size.toLocaleString('en')} posts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        urls.push(url);
      }
      const rows: ScaleRow[] = TESTS.map((t) => ({
        test: t.name,
        database,
        cpuUs: [],
        ratios: [],
        ...(t.trigram && trigramSkipped !== undefined && { skipped: trigramSkipped }),
      }));
      const perSize = sizes.map(() => TESTS.map((): number[] => []));
      for (let round = 1; round <= o.rounds; round += 1) {
        // sizes in alternation, each first in turn
        const order = sizes.map((_, i) => (i + round) % sizes.length);
        for (const s of order) {
          const size = sizes[s] ?? 0;
          const server = await startServer(
            `scale ${size}`,
            ['dist/main.js'],
            dir,
            { ...env, DATABASE_URL: urls[s] ?? '' },
            '/healthz',
          );
          try {
            for (const [t, test] of TESTS.entries()) {
              if (rows[t]?.skipped !== undefined) continue;
              const url = server.url + (await test.path(size, server));
              const script =
                test.script === undefined
                  ? undefined
                  : writeScript(scripts, `${database}-${size}-${t}`, test.script(size));
              wrk(url, o.load.warmup, o.load.connections, script);
              const measured = measure(
                server,
                () => wrk(url, o.load.seconds, o.load.connections, script),
                cluster?.cpuMs,
              );
              if (measured.non2xx > 0)
                throw new Error(
                  `scale ${database} ${size}: ${test.name} answered ${measured.non2xx} non-2xx responses`,
                );
              // on PostgreSQL the database's CPU too: a read that grows with the table grows there, not in the server
              const cost = measured.cpuUsPerRequest + (measured.databaseCpuUsPerRequest ?? 0);
              perSize[s]?.[t]?.push(cost);
              console.log(
                `  scale ${database.padEnd(10)} ${size.toLocaleString('en').padStart(9)} ${test.name.padEnd(44)} ${cost.toFixed(1).padStart(7)} µs CPU/request`,
              );
            }
          } finally {
            await server.stop();
          }
        }
      }
      for (const [t, row] of rows.entries()) {
        row.cpuUs = sizes.map((_, s) => (row.skipped === undefined ? median(perSize[s]?.[t] ?? []) : NaN));
        const first = perSize[0]?.[t] ?? [];
        const last = perSize[sizes.length - 1]?.[t] ?? [];
        row.ratios = last.map((cpu, i) => cpu / (first[i] ?? NaN));
      }
      result.rows.push(...rows);
    } finally {
      cluster?.stop();
    }
  }
  return result;
}

/** Generates and builds bench/scale.yaml; without `index: trigram` when this generator refuses it. */
function generate(root: string, work: string, dir: string): { trigramSkipped?: string } {
  const run = (definition: string): void => {
    execFileSync(process.execPath, ['bin/restsmith.js', 'generate', definition, '--out', dir], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  };
  let trigramSkipped: string | undefined;
  try {
    run('bench/scale.yaml');
  } catch (error) {
    const message = String((error as { stderr?: Buffer }).stderr ?? error);
    if (!message.includes('trigram')) throw error;
    trigramSkipped = 'not run: this generator does not know `index: trigram` yet';
    const without = join(work, 'scale-without-trigram.yaml');
    writeFileSync(without, readFileSync(join(root, 'bench/scale.yaml'), 'utf8').replace(/, index: trigram/g, ''));
    run(without);
    console.log(`  scale: ${trigramSkipped}; the trigram row is skipped`);
  }
  execFileSync(process.execPath, [join(root, 'node_modules/typescript7/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: dir,
    stdio: 'inherit',
  });
  mkdirSync(join(dir, 'data'), { recursive: true });
  return trigramSkipped === undefined ? {} : { trigramSkipped };
}

/** wrk's script of GET item: a random one of the `size` posts, its id made as the seed made it. */
function itemScript(size: number): string {
  return `request = function() return wrk.format("GET", string.format("/posts/${POST_ID}", math.random(0, ${size - 1}))) end\n`;
}

function writeScript(dir: string, name: string, text: string): string {
  const path = join(dir, `${name}.lua`);
  writeFileSync(path, text);
  return path;
}

/** SQLite: writers, then posts, each one INSERT … SELECT from a recursive CTE; then ANALYZE. */
function seedSqlite(file: string, size: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = new Date().toISOString();
  const writers = Math.max(1, Math.floor(size / POSTS_PER_WRITER));
  db.transaction(() => {
    db.prepare(
      `INSERT INTO writers (id, name, created_at, updated_at)
       WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
       SELECT printf('${WRITER_ID}', i), 'Writer ' || i, ?, ? FROM n`,
    ).run(writers, now, now);
    db.prepare(
      `INSERT INTO posts (id, title, body, views, writer_id, created_at, updated_at)
       WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
       SELECT printf('${POST_ID}', i), 'Post ' || i,
              'The body of post ' || i || ', with its word ' || printf('w%08x', (i * 2654435761) % 4294967296) || '.' ||
              CASE WHEN i = ${SOUGHT} THEN ' A ${RARE}.' ELSE '' END,
              i, printf('${WRITER_ID}', i % ?), ?, ? FROM n`,
    ).run(size, writers, now, now);
  })();
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** PostgreSQL: the same rows from generate_series, one INSERT a table; then VACUUM ANALYZE. */
async function seedPostgres(url: string, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const writers = Math.max(1, Math.floor(size / POSTS_PER_WRITER));
  const id = (pattern: string, value: string): string =>
    `'${pattern.slice(0, -'%012x'.length)}' || lpad(to_hex(${value}), 12, '0')`;
  try {
    await client.query(
      `INSERT INTO writers (id, name, created_at, updated_at)
       SELECT ${id(WRITER_ID, 'i')}, 'Writer ' || i, now(), now() FROM generate_series(0, $1::int - 1) AS i`,
      [writers],
    );
    await client.query(
      `INSERT INTO posts (id, title, body, views, writer_id, created_at, updated_at)
       SELECT ${id(POST_ID, 'i')}, 'Post ' || i,
              'The body of post ' || i || ', with its word w' || lpad(to_hex(((i::bigint * 2654435761) % 4294967296)::bigint), 8, '0') || '.' ||
              CASE WHEN i = ${SOUGHT} THEN ' A ${RARE}.' ELSE '' END,
              i, ${id(WRITER_ID, 'i % $2::int')}, now(), now() FROM generate_series(0, $1::int - 1) AS i`,
      [size, writers],
    );
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}
