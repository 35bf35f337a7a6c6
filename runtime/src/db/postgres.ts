import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Pooler } from '../config.js';
import {
  ConstraintError,
  countFailure,
  DatabaseUnavailableError,
  firstThen,
  lazyKysely,
  noFailures,
  type Database,
  type ListStatement,
  type Row,
  type Bound,
  type Params,
  type Program,
  type SqlValue,
  type Statement,
  type StatementFailures,
} from './database.js';
import type { Cost } from './cost.js';
import { loadPg } from './drivers.js';
import { prepareNamed } from './named.js';
import { costOf } from './pg-cost.js';
import { migrationDialect } from './pg-migrations.js';
import { sessionOf, withClient, type Session, type Settings } from './pg-session.js';
import { rowMaker, type RowMaker } from './rows.js';
import { ScanGate, type ScanLimits } from './scan-gate.js';
import { utcTimestamp } from './timestamps.js';

/**
 * A pool of `poolSize` PostgreSQL connections. Statements are prepared once per connection (named statements), or,
 * behind a transaction-mode pooler (`pooler`, DATABASE_POOLER), unnamed, with nothing kept in a connection between two
 * transactions (see pg-session.ts). Rows come back in the shape SQLite gives (see database.ts): booleans as 0/1, BIGINT
 * as numbers (every integer the API accepts is a safe integer), JSONB as its text, TIMESTAMPTZ as ISO 8601 text in UTC.
 *
 * No statement of a request runs longer than `statementTimeoutMs` (DATABASE_STATEMENT_TIMEOUT, default 10 s; 0: no
 * limit): PostgreSQL cancels it and the request answers 503, so that no request holds a pooled connection for long.
 * Migrations run through a pool of their own without that limit (a table rebuilt can take longer); its connections
 * close when idle. Listing statements that scan a table (see cost.ts) run on a pool of their own, of `scans.slots`
 * connections (0: a quarter of `poolSize`, at least one), under the caps of scan-gate.ts: however many clients send
 * them, the main pool's connections stay free for every other statement.
 */
export function openPostgres(
  url: string,
  poolSize: number,
  statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
  scans: ScanLimits = { slots: 0, queue: 0, perClient: 2, timeoutMs: statementTimeoutMs },
  pooler: Pooler = 'session',
): Database {
  const { Pool } = loadPg();
  // a connection that cannot be made (or a free one found) within 10 s is an error, not a wait without end
  const poolOf = (max: number, session: Session): pg.Pool =>
    new Pool({
      connectionString: url,
      max,
      connectionTimeoutMillis: 10_000,
      types: { getTypeParser },
      ...session.poolOptions,
    });
  const timeout: Settings = statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {};
  const main = sessionOf(pooler, timeout);
  const pool = poolOf(poolSize, main);
  const slots = scans.slots || Math.max(1, Math.floor(poolSize / 4));
  const gate = new ScanGate({ ...scans, slots, queue: scans.queue || slots * 4 });
  // a scan takes one backend's core, not as many parallel workers as PostgreSQL would give it: `slots` scans take
  // `slots` cores of the database server at most
  const scanning = sessionOf(pooler, { ...timeout, max_parallel_workers_per_gather: 0 });
  const scanPool = poolOf(slots, scanning);
  const migrations = new Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 1_000,
    types: { getTypeParser },
  });
  const failures = noFailures();
  FAILURES.set(pool, failures);
  FAILURES.set(scanPool, failures);
  // an idle connection that fails (the server restarted) is dropped from the pool; requests get fresh ones
  pool.on('error', () => undefined);
  scanPool.on('error', () => undefined);
  migrations.on('error', () => undefined);
  const named = (text: string): Statement => prepare(pool, main, text);
  const prepareList = (text: string, options?: { transient?: boolean }): ListStatement => {
    const transient = options?.transient === true;
    const cheap = prepare(pool, main, text, transient);
    const scanned = prepare(scanPool, scanning, text, transient);
    const scan = (params: readonly SqlValue[], client: () => string): Promise<Row[]> =>
      gate.run(client, () => scanned.all(params));
    // decided on the first run (a plan needs a connection); until then, and when it cannot be had, as a scan
    let known: Cost | undefined;
    let asked: Promise<unknown> | undefined;
    return {
      all: (params, client) => {
        if (known === 'cheap') return cheap.all(params);
        if (known === 'scans') return scan(params, client);
        asked ??= costOf(pool, text, main.begin).then(
          (cost) => (known = cost),
          () => (asked = undefined),
        );
        return asked.then(() => (known === 'cheap' ? cheap.all(params) : scan(params, client)));
      },
    };
  };
  return {
    dialect: 'postgres',
    prepare: <P extends Params>(sql: string) => prepareNamed<P>(sql, 'postgres', named),
    prepareText: (text: string, options?: { transient?: boolean }) =>
      prepare(pool, main, text, options?.transient === true),
    atomically: (first, after) => inTransaction(pool, main, () => firstThen(first, after)),
    prepareList: (text, _facts, options) => prepareList(text, options),
    costOf: (text) => costOf(pool, text, main.begin),
    inTransaction: (make) => inTransaction(pool, main, make),
    kysely: lazyKysely((kysely) => migrationDialect(kysely, migrations)),
    ping: async () => {
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        throw failed(pool, error);
      }
    },
    // in use: connections taken (or being opened) for a statement; a scan waits at the gate, then for a connection
    load: () => ({
      pools: {
        main: { inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount, max: poolSize },
        scan: {
          inUse: scanPool.totalCount - scanPool.idleCount,
          waiting: gate.load.waiting + scanPool.waitingCount,
          max: slots,
        },
      },
      failed: failures,
    }),
    close: async () => {
      await Promise.all([pool.end(), scanPool.end(), migrations.end()]);
    },
  };
}

/** DATABASE_STATEMENT_TIMEOUT's default, in milliseconds. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;

/** Rows in SQLite's shape (see database.ts): the parsers of the types that differ, made when pg is first loaded. */
let parsers: Partial<Record<number, (text: string) => SqlValue>> | undefined;

function getTypeParser(oid: number, format?: 'text' | 'binary'): (text: string) => unknown {
  parsers ??= shapeParsers(loadPg().types);
  return parsers[oid] ?? loadPg().types.getTypeParser(oid, format ?? 'text');
}

function shapeParsers(types: typeof pg.types): Partial<Record<number, (text: string) => SqlValue>> {
  const { builtins } = types;
  const parseTimestamp = types.getTypeParser(builtins.TIMESTAMPTZ);
  return {
    [builtins.BOOL]: (text) => (text === 't' ? 1 : 0),
    [builtins.INT8]: Number,
    [builtins.JSON]: (text) => text,
    [builtins.JSONB]: (text) => text,
    [builtins.TIMESTAMPTZ]: (text) => utcTimestamp(text) ?? (parseTimestamp(text) as Date).toISOString(),
  };
}

/** Whether a result's columns are `names`, in order. */
function sameNames(names: readonly string[], fields: readonly pg.FieldDef[]): boolean {
  if (fields.length !== names.length) return false;
  for (let i = 0; i < names.length; i += 1) if (fields[i]?.name !== names[i]) return false;
  return true;
}

/** Each statement's name (when it has one) and text, for transactions. */
const queries = new WeakMap<Statement, { name: string | undefined; text: string }>();

/**
 * A statement named once per connection (prepared there once), or, `transient` or in a session that names none (see
 * pg-session.ts), unnamed: planned at each run. Run on its own, it runs as `session` runs one.
 */
function prepare(pool: pg.Pool, session: Session, text: string, transient = false): Statement {
  const name =
    transient || !session.named
      ? undefined
      : `restsmith_${createHash('sha256').update(text).digest('base64url').slice(0, 20)}`;
  // one object shape for every run, and the caller's values as they are: pg reads them, and never writes them. Rows
  // come as arrays (see `maker` below)
  const query = <T>(
    params: readonly SqlValue[],
    pick: (result: pg.QueryResult<SqlValue[]>) => T,
  ): Promise<T> => {
    const config: pg.QueryArrayConfig<SqlValue[]> = {
      name,
      text,
      values: params as SqlValue[],
      rowMode: 'array',
    };
    const again = (error: unknown, attempt: number): Promise<T> =>
      attempt < RETRIES && retryable(error)
        ? session.query(pool, config).then(pick, (next: unknown) => again(next, attempt + 1))
        : Promise.reject(failed(pool, error));
    try {
      return session.query(pool, config).then(pick, (error: unknown) => again(error, 0));
    } catch (error) {
      // pg throws before it has a promise when it cannot even make a connection (a URL or certificate it cannot read):
      // a statement still answers with a rejected promise, its error translated
      return Promise.reject(failed(pool, error));
    }
  };
  // Rows come as arrays and are made objects by a function written for their columns (rowMaker, as on SQLite): pg's
  // own object rows are made by one loop of keyed stores shared by every statement, which goes megamorphic. Each
  // result's columns are compared with the ones the function was made for, and a new one is taken when they differ:
  // a statement's columns are those of the table when a connection prepares it (`SELECT *`, `TABLE t`), and a
  // migration may change them between two connections.
  let made: { names: string[]; toRow: RowMaker } | undefined;
  const maker = ({ fields }: pg.QueryResult<SqlValue[]>): RowMaker => {
    if (made === undefined || !sameNames(made.names, fields)) {
      const names = fields.map((field) => field.name);
      made = { names, toRow: rowMaker(names) };
    }
    return made.toRow;
  };
  const statement: Statement = {
    get: (params) =>
      query(params, (result) => {
        const values = result.rows[0];
        return values === undefined ? undefined : maker(result)(values);
      }),
    all: (params) =>
      query(params, (result) => (result.rows.length === 0 ? [] : result.rows.map(maker(result)))),
    values: (params) => query(params, (result) => result.rows),
    run: (params) => query(params, (result) => result.rowCount ?? 0),
  };
  queries.set(statement, { name, text });
  return statement;
}

/**
 * The statements of the program `make` makes, in one transaction on one connection of the pool, opened as `session`
 * opens one; run again, with a new program, when a deadlock or a serialization failure undid it (at most RETRIES
 * times more).
 */
async function inTransaction<T>(pool: pg.Pool, session: Session, make: () => Program<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await transactionOnce(pool, session, make());
    } catch (error) {
      if (attempt >= RETRIES || !retryable(error)) throw failed(pool, error);
    }
  }
}

async function transactionOnce<T>(pool: pg.Pool, session: Session, program: Program<T>): Promise<T> {
  const run = async (client: pg.PoolClient, { statement, values }: Bound): Promise<Row[]> => {
    const query = queries.get(statement);
    if (query === undefined) throw new Error('a statement of another database');
    const { name, text } = query;
    return (await client.query<Row>({ ...(name !== undefined && { name }), text, values: [...values] })).rows;
  };
  return withClient(pool, async (client, broke) => {
    try {
      let step: IteratorResult<Bound, T>;
      if (session.pipelined) {
        // the BEGIN (and its settings) goes with the first statement: one round trip. Its failure is that statement's
        const begun = client.query(session.begin);
        begun.catch(() => undefined);
        step = program.next();
        if (step.done === true) await begun;
        else step = program.next((await Promise.all([begun, run(client, step.value)]))[1]);
      } else {
        await client.query(session.begin);
        step = program.next();
      }
      while (step.done !== true) step = program.next(await run(client, step.value));
      await client.query('COMMIT');
      return step.value;
    } catch (error) {
      await client.query('ROLLBACK').catch((failed: unknown) => {
        // a connection that cannot even roll back is not given back to the pool
        broke(failed instanceof Error ? failed : new Error(String(failed)));
      });
      // untranslated: inTransaction tells a deadlock from the rest
      throw error;
    }
  });
}

/**
 * How many times more a statement or a transaction is run when PostgreSQL undid it to break a deadlock (40P01) or
 * for a serialization failure (40001): nothing of it was kept, so running it again is safe. A write whose event takes
 * the commit-order lock (events/log.ts) while another holds rows it needs is one such deadlock.
 */
const RETRIES = 3;
const retryable = (error: unknown): boolean =>
  error instanceof loadPg().DatabaseError && (error.code === '40P01' || error.code === '40001');

/** SQLSTATE codes of constraint violations: https://www.postgresql.org/docs/current/errcodes-appendix.html */
const CONSTRAINT_KINDS: Record<string, ConstraintError['kind']> = {
  '23505': 'unique',
  '23503': 'foreignKey',
  '23001': 'foreignKey', // ON DELETE RESTRICT
  '23502': 'notNull',
  '23514': 'check',
};

/**
 * Errors of a database that cannot answer now: connection exceptions (08), insufficient resources (53), shutdown
 * (57P), a statement cancelled by statement_timeout (57014), and a deadlock or a serialization failure still there
 * after the retries (40P01, 40001).
 */
const UNAVAILABLE = /^(08|53|57P0[1-3]|57014|40P01|40001)/;
const NETWORK_ERRORS = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'];

/** The failures of each database's statements (see StatementFailures), by its pools. */
const FAILURES = new WeakMap<pg.Pool, StatementFailures>();

/**
 * A statement's error translated, and counted among the failures of the database of `pool` when it is the
 * database's (an error of the server's own code in a transaction's program is not).
 */
function failed(pool: pg.Pool, error: unknown): unknown {
  const translated = translate(error);
  const failures = FAILURES.get(pool);
  const database = error instanceof loadPg().DatabaseError || translated instanceof DatabaseUnavailableError;
  if (failures !== undefined && database) countFailure(failures, translated);
  return translated;
}

function translate(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const unavailable =
    (error instanceof loadPg().DatabaseError && UNAVAILABLE.test(error.code ?? '')) ||
    (code !== undefined && NETWORK_ERRORS.includes(code)) ||
    /timeout exceeded when trying to connect|Connection terminated/.test(error.message);
  if (unavailable) return new DatabaseUnavailableError(error.message);
  if (!(error instanceof loadPg().DatabaseError) || error.code === undefined) return error;
  const kind = CONSTRAINT_KINDS[error.code] ?? (error.code.startsWith('22') ? 'value' : undefined);
  if (kind === undefined) return error;
  return new ConstraintError(kind, columnsIn(error), error.constraint, { cause: error });
}

/** `Key (email, name)=(…) already exists.` → ['email', 'name'] */
function columnsIn(error: pg.DatabaseError): string[] {
  if (error.column !== undefined) return [error.column];
  const list = /^Key \(([^)]*)\)/.exec(error.detail ?? '')?.[1] ?? '';
  return list
    .split(',')
    .map((part) => part.trim().replaceAll('"', ''))
    .filter((column) => column !== '');
}
