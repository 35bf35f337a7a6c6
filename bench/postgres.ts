import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cpuMsOf, freePort, LOAD_CPU } from './lib.js';
import { seedRow } from './seed.js';

/**
 * A throwaway PostgreSQL cluster for the benchmark, as scripts/services.sh starts one for the tests: initdb as the
 * `postgres` user (PostgreSQL refuses root), trust auth, fsync off, on a free port of 127.0.0.1; every process of it
 * pinned to the load generator's core (the postmaster is started under taskset, its backends inherit the mask).
 */
export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  version: string;
  /** CPU time of the postmaster and every process it forked (backends, background workers), in ms */
  cpuMs(): number;
  stop(): void;
}

/** the newest installed server's binaries (the client package alone has no initdb) */
function pgBin(): string | undefined {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [];
  const newest = versions
    .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))
    .sort((a, b) => Number(a) - Number(b))
    .at(-1);
  return newest === undefined ? undefined : `/usr/lib/postgresql/${newest}/bin`;
}

/** Debian's postgresql, installed when missing (CI), its default cluster stopped: the benchmark starts its own. */
function ensurePostgres(): string {
  const found = pgBin();
  if (found !== undefined) return found;
  console.log("installing Debian's postgresql…");
  execFileSync(
    'sh',
    [
      '-c',
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null && ' +
        'for c in /etc/postgresql/*/main; do [ -d "$c" ] && pg_ctlcluster "$(basename "$(dirname "$c")")" main stop >/dev/null 2>&1; done; true',
    ],
    { stdio: 'inherit' },
  );
  const installed = pgBin();
  if (installed === undefined) throw new Error('PostgreSQL is needed for the PostgreSQL rounds: install postgresql');
  return installed;
}

export async function startCluster(): Promise<Cluster> {
  const bin = ensurePostgres();
  const dir = mkdtempSync(join(tmpdir(), 'restsmith-bench-pg.'));
  const root = process.getuid?.() === 0;
  if (root) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
  const as = (command: string, args: string[]): void => {
    const [file, ...rest] = root ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args];
    execFileSync(file ?? command, rest, { stdio: ['ignore', 'ignore', 'inherit'] });
  };
  const data = join(dir, 'pg');
  const port = await freePort();
  // pg_ctl starts the postmaster in a session of its own: ^C does not reach it, these handlers stop it
  const interrupted = (): void => {
    stop();
    process.exit(130);
  };
  const stop = (): void => {
    process.off('exit', stop).off('SIGINT', interrupted).off('SIGTERM', interrupted);
    try {
      if (existsSync(join(data, 'postmaster.pid'))) as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', stop).once('SIGINT', interrupted).once('SIGTERM', interrupted);
  as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const log = join(dir, 'pg.log');
  as('taskset', ['-c', LOAD_CPU, join(bin, 'pg_ctl'), '-D', data, '-l', log, '-w', '-o', options, 'start']);
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const version = execFileSync(join(bin, 'postgres'), ['--version'])
    .toString()
    .trim()
    .replace(/^postgres \(PostgreSQL\) /, '');
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    version,
    cpuMs: () => cpuMsOf(postmaster) + childrenOf(postmaster).reduce((sum, pid) => sum + cpuMsOrZero(pid), 0),
    stop,
  };
}

/** a process that has exited since it was listed used no more CPU than its parent has counted (cutime) */
function cpuMsOrZero(pid: number): number {
  try {
    return cpuMsOf(pid);
  } catch {
    return 0;
  }
}

/** The processes whose parent is `parent`, from /proc/<pid>/stat (field 4). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) children.push(Number(entry));
    } catch {
      // gone since it was listed
    }
  }
  return children;
}

/** Runs `sql` statements on `url`'s database, one connection. */
export async function sql(url: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const text of statements) await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * The rows seed() wrote to SQLite, with the same ids (the wrk scripts and the deep page's id serve both databases),
 * in one INSERT per table; then VACUUM ANALYZE, so that both servers start from the same statistics.
 */
export async function seedPostgres(url: string, ids: { posts: string[]; articles: string[] }): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const now = new Date().toISOString();
    for (const table of ['posts', 'articles'] as const) {
      const rows = ids[table].map((id, i) => ({ id, ...seedRow(i) }));
      await client.query(
        `INSERT INTO ${table} (id, title, body, status, views, rating, featured, created_at, updated_at)
         SELECT *, $8::timestamptz, $8::timestamptz FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::float8[], $7::boolean[])`,
        [
          rows.map((r) => r.id),
          rows.map((r) => r.title),
          rows.map((r) => r.body),
          rows.map((r) => r.status),
          rows.map((r) => r.views),
          rows.map((r) => r.rating),
          rows.map((r) => r.featured),
          now,
        ],
      );
    }
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}
