import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import {
  ConstraintError,
  DatabaseUnavailableError,
  type Database,
  type Row,
  type Bound,
  type Params,
  type SqlValue,
  type Statement,
} from './database.js';
import { prepareNamed } from './named.js';

/** Opens (and creates) an SQLite database file in WAL mode with foreign keys enforced. */
export function openSqlite(file: string): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');

  /** each statement's own better-sqlite3 statement, for transactions */
  const natives = new WeakMap<Statement, Native>();
  const make = (text: string): Statement => {
    const native = nativeOf(db.prepare<SqlValue[], SqlValue[]>(text));
    const made = prepare(native);
    natives.set(made, native);
    return made;
  };
  const execute = ({ statement, values }: Bound): Row[] => {
    const native = natives.get(statement);
    if (native === undefined) throw new Error('a statement of another database');
    if (native.toRow !== undefined) return native.statement.all(...values).map(native.toRow);
    native.statement.run(...values);
    return [];
  };
  // IMMEDIATE: the write lock is taken at BEGIN, so that a transaction never fails half-way for another connection's
  const transaction = db.transaction((first: Bound, after: (rows: Row[]) => Bound[]): Row[] => {
    const rows = execute(first);
    for (const next of after(rows)) execute(next);
    return rows;
  }).immediate;

  return {
    dialect: 'sqlite',
    prepare: <P extends Params>(sql: string) => prepareNamed<P>(sql, 'sqlite', make),
    prepareText: make,
    atomically: async (first, after) => translateErrors(() => transaction(first, after)),
    kysely: new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) }),
    ping: async () => {
      db.prepare('SELECT 1').get();
    },
    close: async () => {
      db.close();
    },
  };
}

/**
 * A better-sqlite3 statement. One that returns rows is in raw mode (rows as arrays of column values) and `toRow` makes
 * each an object: better-sqlite3's own object rows cost a third of a 20-row page (each column set through V8's API),
 * where rows made here, in one loop over the same names, are objects of the one shape V8 has already seen.
 */
interface Native {
  statement: BetterSqlite3.Statement<SqlValue[], SqlValue[]>;
  /** undefined when the statement returns no rows */
  toRow?: (values: SqlValue[]) => Row;
}

function nativeOf(statement: BetterSqlite3.Statement<SqlValue[], SqlValue[]>): Native {
  if (!statement.reader) return { statement };
  const names = statement.columns().map((column) => column.name);
  const toRow = (values: SqlValue[]): Row => {
    const row: Row = {};
    for (let i = 0; i < names.length; i++) row[names[i] ?? ''] = values[i] ?? null;
    return row;
  };
  return { statement: statement.raw(true), toRow };
}

function prepare({ statement, toRow }: Native): Statement {
  if (toRow === undefined) {
    const none = async (): Promise<never> => {
      throw new Error('rows were asked of a statement that returns none');
    };
    return {
      get: none,
      all: none,
      values: none,
      run: async (params) => translateErrors(() => statement.run(...params).changes),
    };
  }
  return {
    get: async (params) =>
      translateErrors(() => {
        const values = statement.get(...params);
        return values === undefined ? undefined : toRow(values);
      }),
    all: async (params) => translateErrors(() => statement.all(...params).map(toRow)),
    values: async (params) => translateErrors(() => statement.all(...params)),
    run: async (params) => translateErrors(() => statement.all(...params).length),
  };
}

const CONSTRAINT_KINDS: Record<string, ConstraintError['kind']> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreignKey',
  SQLITE_CONSTRAINT_NOTNULL: 'notNull',
  SQLITE_CONSTRAINT_CHECK: 'check',
};

function translateErrors<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof BetterSqlite3.SqliteError)) throw error;
    // another connection held the database longer than busy_timeout
    if (error.code === 'SQLITE_BUSY') throw new DatabaseUnavailableError(error.message);
    // ON DELETE RESTRICT fails with SQLITE_CONSTRAINT_TRIGGER, but says what it is
    const kind = error.message.startsWith('FOREIGN KEY') ? 'foreignKey' : CONSTRAINT_KINDS[error.code];
    if (kind === undefined) throw error;
    throw new ConstraintError(kind, columnsIn(error.message));
  }
}

/** `UNIQUE constraint failed: users.email, users.name` → ['email', 'name'] */
function columnsIn(message: string): string[] {
  const list = message.split(':')[1] ?? '';
  return list
    .split(',')
    .map((part) => part.trim().split('.').pop() ?? '')
    .filter((column) => column !== '');
}
