import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './project.js';

/** Debian's PgBouncer (the `pgbouncer` package). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `url` (a database of the PostgreSQL behind it) as reached through PgBouncer */
  through(url: string): string;
  /** what PgBouncer logged */
  log(): string;
  stop(): Promise<void>;
}

/**
 * A PgBouncer on a free port of 127.0.0.1 in front of the PostgreSQL of `target` (its host and port; every database of
 * it, with trust authentication as scripts/services.sh starts it), in `mode` (`transaction`: each transaction of a
 * client may go to another server connection). At most `serverConnections` server connections a database: fewer than
 * the clients' connections, so that clients do share them. PgBouncer refuses to run as root: as root it runs as the
 * `postgres` user, as the test PostgreSQL does.
 */
export async function startPgBouncer(
  target: string,
  mode: 'session' | 'transaction' = 'transaction',
  serverConnections = 8,
): Promise<PgBouncer> {
  const { hostname, port: targetPort } = new URL(target);
  const dir = mkdtempSync(join(tmpdir(), 'restsmith-pgbouncer.'));
  const port = await freePort();
  const user = decodeURIComponent(new URL(target).username || 'postgres');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${hostname} port=${targetPort || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 1000',
      `default_pool_size = ${serverConnections}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const root = process.getuid?.() === 0;
  const ids = root
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
      }
    : {};
  if (ids.uid !== undefined) {
    chownSync(dir, ids.uid, ids.gid);
    for (const file of ['userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, file), ids.uid, ids.gid);
  }
  let output = '';
  const child = spawn(PGBOUNCER, [join(dir, 'pgbouncer.ini')], { ...ids, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const through = (url: string): string => {
    const reached = new URL(url);
    reached.hostname = '127.0.0.1';
    reached.port = String(port);
    return reached.toString();
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // ready once a query gets through it
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`pgbouncer exited with ${child.exitCode}:\n${output}`);
    }
    const client = new pg.Client({ connectionString: through(target) });
    const ready = await client
      .connect()
      .then(() => client.query('SELECT 1'))
      .then(
        () => true,
        () => false,
      )
      .finally(() => client.end().catch(() => undefined));
    if (ready) break;
    if (attempt >= 50) {
      await stop();
      throw new Error(`pgbouncer did not answer within 5 s:\n${output}`);
    }
    await new Promise((wait) => setTimeout(wait, 100));
  }
  return { through, log: () => output, stop };
}
