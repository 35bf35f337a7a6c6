import type pg from 'pg';
import type { Pooler } from '../config.js';
import type { SqlValue } from './database.js';
import { loadPg } from './drivers.js';

/** Settings of PostgreSQL a pool's statements run with (`statement_timeout`, `max_parallel_workers_per_gather`). */
export type Settings = Readonly<Record<string, number>>;

/**
 * How the statements of one pool keep their settings and their plans, by what stands between the server and
 * PostgreSQL (DATABASE_POOLER, see config.ts).
 *
 * `session`: a connection is the same PostgreSQL backend for as long as it lasts, so it keeps state: the settings
 * are given once, when it starts (pg's `statement_timeout` and `options`), and statements are named (prepared once per
 * connection, then only bound and run).
 *
 * `transaction`: the pooler hands each transaction to any of its server connections, so that nothing set on a
 * connection outside a transaction holds for the next one, which may be another client's: a startup parameter is
 * refused (PgBouncer: `unsupported startup parameter`), a statement prepared under a name on one backend is missing
 * on the next, or already there under that name (`prepared statement "…" already exists`), a session-level SET or
 * advisory lock stays with a backend others then use. So statements are unnamed (parsed and planned at each run),
 * and each one that needs a setting runs in a transaction of its own that sets it first (`BEGIN; SET LOCAL …`),
 * the `BEGIN`, the statement and the `COMMIT` sent together (pg's pipeline mode): one round trip, as a statement on
 * its own. A transaction of several statements sets them in its `BEGIN`, sent with its first statement.
 */
export interface Session {
  /** whether statements may be prepared once per connection, under a name */
  readonly named: boolean;
  /** the options of the pool that carry the settings to each new connection (session) */
  readonly poolOptions: pg.PoolConfig;
  /** what opens a transaction: `BEGIN`, with the settings in transaction mode */
  readonly begin: string;
  /** whether a transaction's `BEGIN` goes with its first statement (the connection pipelines its queries) */
  readonly pipelined: boolean;
  /** runs one statement on a connection of `pool`, with the settings, as a transaction of its own */
  query(pool: pg.Pool, config: pg.QueryArrayConfig<SqlValue[]>): Promise<pg.QueryArrayResult<SqlValue[]>>;
}

export function sessionOf(pooler: Pooler, settings: Settings): Session {
  const entries = Object.entries(settings);
  if (pooler === 'session') {
    const { statement_timeout: timeout, ...others } = settings;
    const options = Object.entries(others).map(([name, value]) => `-c ${name}=${value}`);
    return {
      named: true,
      poolOptions: {
        ...(timeout !== undefined && { statement_timeout: timeout }),
        ...(options.length > 0 && { options: options.join(' ') }),
      },
      begin: 'BEGIN',
      pipelined: false,
      query: (pool, config) => pool.query<SqlValue[]>(config),
    };
  }
  const begin = ['BEGIN', ...entries.map(([name, value]) => `SET LOCAL ${name} = ${value}`)].join('; ');
  return {
    named: false,
    poolOptions: { pipeline: true },
    begin,
    pipelined: true,
    // with no setting to make, a statement is its own transaction as it is
    query:
      entries.length === 0
        ? (pool, config) => pool.query<SqlValue[]>(config)
        : (pool, config) => alone(pool, begin, config),
  };
}

/**
 * One statement in a transaction of its own, opened by `begin`: the three sent at once, and each answered before the
 * connection goes back to the pool. A statement that fails makes the `COMMIT` a rollback (PostgreSQL's own rule for a
 * transaction that failed); its own error is the one thrown. A connection whose socket failed is not given back.
 */
async function alone(
  pool: pg.Pool,
  begin: string,
  config: pg.QueryArrayConfig<SqlValue[]>,
): Promise<pg.QueryArrayResult<SqlValue[]>> {
  return withClient(pool, async (client, broke) => {
    const settled = await Promise.allSettled([
      client.query(begin),
      client.query<SqlValue[]>(config),
      client.query('COMMIT'),
    ]);
    const [, result] = settled;
    // the first failure in the order sent: a BEGIN that failed fails what follows it
    const failed = settled.find((one): one is PromiseRejectedResult => one.status === 'rejected');
    if (failed === undefined && result.status === 'fulfilled') return result.value;
    const reason: unknown = failed?.reason;
    if (!(reason instanceof loadPg().DatabaseError))
      broke(reason instanceof Error ? reason : new Error(String(reason)));
    throw reason;
  });
}

/**
 * `use` with a connection of `pool`, given back to it after, or closed instead when it is broken: its socket failed
 * while it was out (the pool listens for a client's errors only while it is idle, so that would otherwise be an
 * unhandled 'error' event; the query under way fails on its own), or `use` said so (`broke`).
 */
export async function withClient<T>(
  pool: pg.Pool,
  use: (client: pg.PoolClient, broke: (error: Error) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const broke = (error: Error): void => {
    broken ??= error;
  };
  client.on('error', broke);
  try {
    return await use(client, broke);
  } finally {
    client.off('error', broke);
    client.release(broken);
  }
}
