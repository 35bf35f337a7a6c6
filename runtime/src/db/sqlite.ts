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
  const natives = new WeakMap<Statement, BetterSqlite3.Statement<SqlValue[], Row>>();
  const make = (text: string): Statement => {
    const statement = db.prepare<SqlValue[], Row>(text);
    const made = prepare(db, text, statement);
    natives.set(made, statement);
    return made;
  };
  const execute = ({ statement, values }: Bound): Row[] => {
    const native = natives.get(statement);
    if (native === undefined) throw new Error('a statement of another database');
    if (native.reader) return native.all(...values);
    native.run(...values);
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

function prepare(
  db: BetterSqlite3.Database,
  text: string,
  statement: BetterSqlite3.Statement<SqlValue[], Row>,
): Statement {
  const reads = statement.reader;
  // the same statement in raw mode (rows as arrays), prepared on first use
  let raw: BetterSqlite3.Statement<SqlValue[], SqlValue[]> | undefined;
  return {
    get: async (params) => translateErrors(() => statement.get(...params)),
    all: async (params) => translateErrors(() => statement.all(...params)),
    values: async (params) =>
      translateErrors(() => (raw ??= db.prepare<SqlValue[], SqlValue[]>(text).raw(true)).all(...params)),
    run: async (params) =>
      translateErrors(() => (reads ? statement.all(...params).length : statement.run(...params).changes)),
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
