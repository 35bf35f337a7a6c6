/**
 * The one small interface between the generated data access code and a database driver.
 * The stores' SQL is written at generation time in the SQL both databases speak, with named parameters (`:name`), and
 * prepared once at start-up (see db/named.ts for how names become each driver's placeholders).
 * Every driver returns rows in the same shape: booleans as 0/1, JSON as text, datetimes as ISO text.
 */
import type { Dialect as KyselyDialect, Kysely } from 'kysely';
import type { Cost, CostFacts } from './cost.js';

export type Dialect = 'sqlite' | 'postgres';

/** A value bound to a statement parameter or read from a column. */
export type SqlValue = string | number | null;
export type Row = Record<string, SqlValue>;

/** The values of a statement's named parameters. */
export type Params = Record<string, SqlValue>;

/** A statement of positional parameters (`?` or `$1`, as the database writes them). */
export interface Statement {
  /** the first row, or undefined */
  get(params: readonly SqlValue[]): Promise<Row | undefined>;
  all(params: readonly SqlValue[]): Promise<Row[]>;
  /**
   * every row as an array of its column values, in the order the statement selects them: no object per row, which
   * reads embedded records faster (see relations/embed.ts)
   */
  values(params: readonly SqlValue[]): Promise<SqlValue[][]>;
  /** runs a statement that returns no rows; resolves to the number of rows changed */
  run(params: readonly SqlValue[]): Promise<number>;
}

/**
 * A listing's statement, of a cost class decided once when it is prepared (see cost.ts): a cheap one runs as any
 * other statement; one that scans runs apart from the thread that serves HTTP (SQLite) or on a pool of its own
 * (PostgreSQL), under the caps of scan-gate.ts, counted for `client` (the rate limit's key).
 */
export interface ListStatement {
  /** `client` is asked only by a statement that scans: most pages never compute it */
  all(params: readonly SqlValue[], client: () => string): Promise<Row[]>;
}

/** A statement and the values of its parameters, in order. */
export interface Bound {
  statement: Statement;
  values: readonly SqlValue[];
}

/** A statement of named parameters, bound by name: `P` says which. */
export interface Prepared<P extends Params> {
  /** the first row, or undefined */
  get(params: P): Promise<Row | undefined>;
  all(params: P): Promise<Row[]>;
  /** runs a statement that returns no rows; resolves to the number of rows changed */
  run(params: P): Promise<number>;
  /** this statement with its parameters bound: for `Database.atomically` */
  bind(params: P): Bound;
}

/** A transaction's statements in order, each yielded and given back its rows (see `Database.inTransaction`). */
export type Program<T> = Generator<Bound, T, Row[]>;

/** `Database.atomically` as a program: `first`, then the statements `after` makes of its rows. */
export function* firstThen(first: Bound, after: (rows: Row[]) => Bound[]): Program<Row[]> {
  const rows = yield first;
  for (const next of after(rows)) yield next;
  return rows;
}

export interface Database {
  readonly dialect: Dialect;
  /** a statement written at generation time, with named parameters (`:name`), in SQL both databases read */
  prepare<P extends Params>(sql: string): Prepared<P>;
  /**
   * A statement of SQL text written at run time; `transient`: PostgreSQL plans it each time instead of keeping it
   * prepared on every connection (for statements a client can vary without bound).
   */
  prepareText(text: string, options?: { transient?: boolean }): Statement;
  /** A listing's statement (see ListStatement): `facts` say what its plan alone does not (see cost.ts). */
  prepareList(text: string, facts: CostFacts, options?: { transient?: boolean }): ListStatement;
  /** the cost class of a listing's statement, from this database's plan of it (see cost.ts) */
  costOf(text: string, facts: CostFacts): Promise<Cost>;
  /**
   * Runs `first`, then the statements `after` makes of the rows it returned, as one transaction: every change is kept,
   * or none (a statement that fails, or `after` throwing, undoes them all). `after` is synchronous: on SQLite's one
   * connection no other request's statement can run inside the transaction. Resolves to `first`'s rows.
   */
  atomically(first: Bound, after: (rows: Row[]) => Bound[]): Promise<Row[]>;
  /**
   * Runs a transaction whose statements depend on the rows of the ones before: the program `make` makes yields each
   * statement and is given back its rows; what it returns is what the promise resolves to. As with `atomically`,
   * every change is kept or none, and the program is synchronous between its statements (on SQLite it runs in one
   * go). On PostgreSQL, a transaction a deadlock or a serialization failure undid is run again, by a new program.
   */
  inTransaction<T>(make: () => Program<T>): Promise<T>;
  /**
   * the same connection seen through Kysely, for its migrator (see migrate.ts); not for requests. Kysely is loaded
   * on the first call, which a start with no migration pending never makes.
   */
  kysely(): Promise<Kysely<unknown>>;
  ping(): Promise<void>;
  /** what its pools hold now and what its statements met, read when the metrics are scraped (see metrics/) */
  load(): DatabaseLoad;
  close(): Promise<void>;
}

/**
 * A database's load, for the metrics: its pools (`main`: PostgreSQL's connections, which every statement but a scan
 * takes; `scan`: the statements that scan, on SQLite's worker threads or PostgreSQL's pool of their own, see
 * scan-gate.ts), and its statements that failed since it was opened.
 */
export interface DatabaseLoad {
  pools: Partial<Record<'main' | 'scan', PoolLoad>>;
  failed: Readonly<StatementFailures>;
}

/** A pool now: its connections (or threads) running a statement, the statements waiting for one, and its size. */
export interface PoolLoad {
  inUse: number;
  waiting: number;
  max: number;
}

/**
 * Statements the database refused or could not run, by what they failed with: a constraint (a 409 of a unique key, a
 * ref to nothing…), the database unavailable (unreachable, a timeout, busy, a deadlock still there after the retries),
 * any other error of the database's. Errors of the server's own code inside a transaction are not statements'.
 */
export interface StatementFailures {
  constraint: number;
  unavailable: number;
  error: number;
}

export const noFailures = (): StatementFailures => ({ constraint: 0, unavailable: 0, error: 0 });

/** Counts a statement's error, as translated from the driver's, in `failures`; returns it. */
export function countFailure(failures: StatementFailures, error: unknown): unknown {
  if (error instanceof ConstraintError) failures.constraint += 1;
  else if (error instanceof DatabaseUnavailableError) failures.unavailable += 1;
  else failures.error += 1;
  return error;
}

/**
 * `Database.kysely` for a driver: a Kysely over the connection `dialectOf` makes of the loaded module, made on the
 * first call (migrate.ts), so that a start with no migration pending never loads Kysely.
 */
export function lazyKysely(
  dialectOf: (kysely: typeof import('kysely')) => KyselyDialect,
): () => Promise<Kysely<unknown>> {
  let made: Promise<Kysely<unknown>> | undefined;
  return () =>
    (made ??= import('kysely').then((loaded) => new loaded.Kysely<unknown>({ dialect: dialectOf(loaded) })));
}

/**
 * What went wrong, in the database's own words where a translated error keeps them (a ConstraintError made of
 * SQLSTATE 22023 has them in its cause), for a one-line message of a start or a migration.
 */
export const reasonOf = (error: unknown): string => {
  const own = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return own instanceof Error ? own.message || own.name : String(own);
};

/** The database cannot answer now (unreachable, out of connections, restarting, busy): a 503, worth a retry. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/**
 * A statement that scans refused by the caps of scan-gate.ts: `client`, beyond the client's share (a 429); `busy`,
 * every slot and the queue taken, or `deadline`, not answered within DATABASE_STATEMENT_TIMEOUT (a 503). Both say
 * when to try again (`retryAfter`, in seconds).
 */
export class ScanRefusedError extends Error {
  override name = 'ScanRefusedError';
  constructor(
    readonly reason: 'client' | 'busy' | 'deadline',
    readonly retryAfter: number,
  ) {
    super(`a statement that scans was refused: ${reason}`);
  }
}

/** A write refused by a constraint of the schema, translated from the driver's own error. */
export class ConstraintError extends Error {
  override name = 'ConstraintError';
  constructor(
    /**
     * `value`: a value this database cannot store (PostgreSQL refuses the NUL character in text); `depth`: a delete
     * whose cascades go deeper than the database follows (SQLite: 1,000 records or more, each referring to the next)
     */
    readonly kind: 'unique' | 'foreignKey' | 'notNull' | 'check' | 'value' | 'depth',
    /** the columns concerned, where the driver names them */
    readonly columns: string[],
    /** the constraint or index violated, where the driver names it (PostgreSQL; SQLite for an expression index) */
    readonly index?: string,
    /** the driver's own error: its message says more than the kind (migrate.ts reports it) */
    options?: ErrorOptions,
  ) {
    super(`${kind} constraint violated`, options);
  }
}
