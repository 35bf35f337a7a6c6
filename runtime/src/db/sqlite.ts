import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import {
  ConstraintError,
  countFailure,
  DatabaseUnavailableError,
  firstThen,
  noFailures,
  lazyKysely,
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
import { sqliteCost, type Cost, type CostFacts, type PlanLine } from './cost.js';
import { loadBetterSqlite3 } from './drivers.js';
import { prepareNamed } from './named.js';
import { rowMaker } from './rows.js';
import { ScanGate, type ScanLimits } from './scan-gate.js';
import { defaultScanWorkers, ScanWorkers } from './scan-workers.js';

/**
 * SQLite reads the file through a memory map of up to this many bytes instead of a read() call a page: its own page
 * cache is 2 MB, so at a million rows most pages of a lookup by id came through a system call each (GET item at
 * 1,000,000 rows took 50 µs of CPU against 33 at 10,000; mapped, 34). The map takes address space, not memory: its
 * pages are the operating system's file cache, shared with the scan workers' connections (scan-worker.ts).
 */
export const MMAP_BYTES = 1024 * 1024 * 1024;

/** The caps on statements that scan (see scan-gate.ts) when none are given: its slots are the worker threads. */
const DEFAULT_SCANS: ScanLimits = { slots: 0, queue: 0, perClient: 2, timeoutMs: 10_000 };

/**
 * Opens (and creates) an SQLite database file in WAL mode with foreign keys enforced. Listing statements that scan
 * (see cost.ts) run on `scans.slots` worker threads (0: the default for the cores), each with a read-only connection
 * of its own; a `:memory:` database cannot be shared with them, so they run on this connection, still under the caps.
 */
export function openSqlite(file: string, scans: ScanLimits = DEFAULT_SCANS): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const Driver = loadBetterSqlite3();
  const db = new Driver(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma(`mmap_size = ${MMAP_BYTES}`);

  /** each statement's own better-sqlite3 statement, for transactions */
  const natives = new WeakMap<Statement, Native>();
  const failures = noFailures();
  const make = (text: string): Statement => {
    const native = nativeOrLater(db, text);
    const made = prepare(native, failures);
    natives.set(made, native);
    return made;
  };
  const execute = ({ statement, values }: Bound): Row[] => {
    const native = natives.get(statement);
    if (native === undefined) throw new Error('a statement of another database');
    if (native.all !== undefined) return native.all(values);
    native.run(values);
    return [];
  };
  // IMMEDIATE: the write lock is taken at BEGIN, so that a transaction never fails half-way for another connection's
  // write; the program runs between its statements with nothing else on this connection
  const transaction = db.transaction((program: Program<unknown>): unknown => {
    let step = program.next();
    while (step.done !== true) step = program.next(execute(step.value));
    return step.value;
  }).immediate;
  const inTransaction = async <T>(make: () => Program<T>): Promise<T> =>
    translateErrors(() => transaction(make()) as T, failures);

  const shared = file !== ':memory:';
  const slots = shared ? scans.slots || defaultScanWorkers() : 1;
  const gate = new ScanGate({ ...scans, slots, queue: scans.queue || slots * 4 });
  const workers = shared ? new ScanWorkers(file, slots) : undefined;
  const costOf = (text: string, facts: CostFacts): Cost => {
    const plan = db.prepare<SqlValue[], PlanLine>(`EXPLAIN QUERY PLAN ${text}`);
    const unbound = Array.from(text.matchAll(/\?/g), () => null);
    return sqliteCost(plan.all(...unbound), facts);
  };
  const prepareList = (text: string, facts: CostFacts): ListStatement => {
    if (costOf(text, facts) === 'cheap') return make(text);
    if (workers === undefined) {
      const statement = make(text);
      return { all: (params, client) => gate.run(client, () => statement.all(params)) };
    }
    // a worker runs it on a connection of its own: here only its columns' names are read, to make its rows objects
    const toRow = rowMaker(
      db
        .prepare(text)
        .columns()
        .map((column) => column.name),
    );
    // a worker's error is counted here, as this thread's are in translateErrors
    const run = (params: readonly SqlValue[]): Promise<SqlValue[][]> =>
      workers.run(text, params).catch((error: unknown) => Promise.reject(countFailure(failures, error)));
    return {
      all: (params, client) => gate.run(client, () => run(params)).then((rows) => rows.map(toRow)),
    };
  };

  return {
    dialect: 'sqlite',
    prepare: <P extends Params>(sql: string) => prepareNamed<P>(sql, 'sqlite', make),
    prepareText: make,
    prepareList,
    costOf: async (text, facts) => costOf(text, facts),
    atomically: (first, after) => inTransaction(() => firstThen(first, after)),
    inTransaction,
    kysely: lazyKysely((kysely) => new kysely.SqliteDialect({ database: db })),
    ping: async () => {
      db.prepare('SELECT 1').get();
    },
    // the server's own connection runs one statement at a time, on this thread: none is ever under way at a scrape
    load: () => {
      const { running, waiting } = gate.load;
      return { pools: { scan: { inUse: running, waiting, max: slots } }, failed: failures };
    },
    close: async () => {
      await workers?.close();
      db.close();
    },
  };
}

/** A better-sqlite3 statement, run synchronously: `prepare` and transactions wrap it. */
interface Native {
  /** the rows it returns; undefined when it returns none */
  all?: (params: readonly SqlValue[]) => Row[];
  get?: (params: readonly SqlValue[]) => Row | undefined;
  values?: (params: readonly SqlValue[]) => SqlValue[][];
  /** the number of rows it wrote, or returned */
  run: (params: readonly SqlValue[]) => number;
}

/**
 * A statement that returns rows runs in raw mode (rows as arrays of column values) and `toRow` makes each an object:
 * better-sqlite3's own object rows cost a third of a 20-row page (each column set through V8's API), where rows made
 * here, by a function written for the statement's columns (`rowMaker`, rows.ts), are objects of the one shape V8 has
 * already seen. The names are read once (reading them costs more than a row), so only where the SQL has no `*`: its
 * columns are then the ones its text names. `SELECT *` takes a table's columns as they are when it runs, which a
 * migration (of this connection or another) may change under a statement kept: better-sqlite3 makes those rows itself
 * (and sets a column named `__proto__` as the row's prototype, where rowMaker keeps it a column).
 */
function nativeOf(db: BetterSqlite3.Database, text: string): Native {
  const statement = db.prepare<SqlValue[], Row>(text);
  if (!statement.reader) return { run: (params) => statement.run(...params).changes };
  // A write that returns rows (`… RETURNING`) is stepped to its end even when one row is asked: SQLite runs the WAL's
  // automatic checkpoint only when a statement that commits steps to SQLITE_DONE, and one reset after its first row
  // commits without it. A server whose writes all return their row would grow its WAL file without bound (gigabytes
  // within minutes of steady writes), and every page read would search a longer and longer WAL index.
  const writes = !statement.readonly;
  if (text.includes('*')) {
    // the same statement in raw mode, for `values`, prepared on first use
    let raw: BetterSqlite3.Statement<SqlValue[], SqlValue[]> | undefined;
    return {
      all: (params) => statement.all(...params),
      get: writes ? (params) => statement.all(...params)[0] : (params) => statement.get(...params),
      values: (params) => (raw ??= db.prepare<SqlValue[], SqlValue[]>(text).raw(true)).all(...params),
      run: (params) => statement.all(...params).length,
    };
  }
  const toRow = rowMaker(statement.columns().map((column) => column.name));
  const rows = (statement as unknown as BetterSqlite3.Statement<SqlValue[], SqlValue[]>).raw(true);
  return {
    all: (params) => rows.all(...params).map(toRow),
    get: (params) => {
      const values = writes ? rows.all(...params)[0] : rows.get(...params);
      return values === undefined ? undefined : toRow(values);
    },
    values: (params) => rows.all(...params),
    run: (params) => rows.all(...params).length,
  };
}

/**
 * `nativeOf`, or, when the statement names a table or a column the database does not have yet (a server started with
 * MIGRATE_ON_START=false before `npm run migrate`: see http/pending-migrations.ts, which answers 503 meanwhile), a
 * native that prepares it at its first use, once it can be; a use before then fails as the prepare does.
 */
function nativeOrLater(db: BetterSqlite3.Database, text: string): Native {
  try {
    return nativeOf(db, text);
  } catch (error) {
    if (!(error instanceof Error && NOT_YET.test(error.message))) throw error;
  }
  let made: Native | undefined;
  const native = (): Native => (made ??= nativeOf(db, text));
  return {
    // as `execute` runs a statement: its rows, or none when it returns none
    all: (params) => {
      const now = native();
      if (now.all !== undefined) return now.all(params);
      now.run(params);
      return [];
    },
    get: (params) => (native().get ?? noRows)(params),
    values: (params) => (native().values ?? noRows)(params),
    run: (params) => native().run(params),
  };
}

const NOT_YET = /^(no such (table|column)|table \S+ has no column named)/;

const noRows = (): never => {
  throw new Error('rows were asked of a statement that returns none');
};

function prepare({ all, get, values, run }: Native, failures: StatementFailures): Statement {
  const none = async (): Promise<never> => noRows();
  return {
    get: get === undefined ? none : async (params) => translateErrors(() => get(params), failures),
    all: all === undefined ? none : async (params) => translateErrors(() => all(params), failures),
    values: values === undefined ? none : async (params) => translateErrors(() => values(params), failures),
    run: async (params) => translateErrors(() => run(params), failures),
  };
}

const CONSTRAINT_KINDS: Record<string, ConstraintError['kind']> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreignKey',
  SQLITE_CONSTRAINT_NOTNULL: 'notNull',
  SQLITE_CONSTRAINT_CHECK: 'check',
};

/** Runs a statement (or a transaction), its driver's error translated and counted in `failures`. */
function translateErrors<T>(run: () => T, failures: StatementFailures): T {
  try {
    return run();
  } catch (error) {
    // an error of the server's own code (a transaction's program) is not the database's
    if (!(error instanceof loadBetterSqlite3().SqliteError)) throw error;
    throw countFailure(failures, translate(error));
  }
}

function translate(error: Error & { code: string }): Error {
  // another connection held the database longer than busy_timeout
  if (error.code === 'SQLITE_BUSY') return new DatabaseUnavailableError(error.message);
  // a foreign key's cascade is a trigger to SQLite, which it follows fewer than 1,000 deep (SQLITE_MAX_TRIGGER_DEPTH)
  if (error.message === 'too many levels of trigger recursion')
    return new ConstraintError('depth', [], undefined, { cause: error });
  // ON DELETE RESTRICT fails with SQLITE_CONSTRAINT_TRIGGER, but says what it is
  const kind = error.message.startsWith('FOREIGN KEY') ? 'foreignKey' : CONSTRAINT_KINDS[error.code];
  if (kind === undefined) return error;
  return new ConstraintError(kind, columnsIn(error.message), /index '([^']+)'/.exec(error.message)?.[1], {
    cause: error,
  });
}

/** `UNIQUE constraint failed: users.email, users.name` → ['email', 'name']; none from `… failed: index 'name'` */
function columnsIn(message: string): string[] {
  const list = message.split(':')[1] ?? '';
  if (list.startsWith(' index ')) return [];
  return list
    .split(',')
    .map((part) => part.trim().split('.').pop() ?? '')
    .filter((column) => column !== '');
}
