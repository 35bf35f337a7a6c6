/**
 * The one small interface between the generated data access code and a database driver.
 * SQL is written at generation time, once per dialect, and prepared once at start-up.
 * Every driver returns rows in the same shape: booleans as 0/1, JSON as text, datetimes as ISO text.
 */
import type { Kysely } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** A value bound to a statement parameter or read from a column. */
export type SqlValue = string | number | null;
export type Row = Record<string, SqlValue>;

/** The text of one statement in every dialect. */
export type Sql = Record<Dialect, string>;

export interface Statement {
  /** the first row, or undefined */
  get(params: readonly SqlValue[]): Promise<Row | undefined>;
  all(params: readonly SqlValue[]): Promise<Row[]>;
  /** runs a statement that returns no rows; resolves to the number of rows changed */
  run(params: readonly SqlValue[]): Promise<number>;
}

export interface Database {
  readonly dialect: Dialect;
  /** a statement written at generation time, in this database's dialect */
  prepare(sql: Sql): Statement;
  /** a statement in this database's dialect written at run time (listings, see db/list-sql.ts) */
  /**
   * A statement of SQL text written at run time; `transient`: PostgreSQL plans it each time instead of keeping it
   * prepared on every connection (for statements a client can vary without bound).
   */
  prepareText(text: string, options?: { transient?: boolean }): Statement;
  /** the same connection seen through Kysely, for its migrator (see migrate.ts); not for requests */
  readonly kysely: Kysely<unknown>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The database cannot answer now (unreachable, out of connections, restarting, busy): a 503, worth a retry. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/** A write refused by a constraint of the schema, translated from the driver's own error. */
export class ConstraintError extends Error {
  override name = 'ConstraintError';
  constructor(
    /** `value`: a value this database cannot store (PostgreSQL refuses the NUL character in text) */
    readonly kind: 'unique' | 'foreignKey' | 'notNull' | 'check' | 'value',
    /** the columns concerned, where the driver names them */
    readonly columns: string[],
  ) {
    super(`${kind} constraint violated`);
  }
}
