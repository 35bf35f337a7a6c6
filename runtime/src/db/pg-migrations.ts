import type { DatabaseConnection, Dialect, DialectAdapter, Driver, TransactionSettings } from 'kysely';
import type pg from 'pg';

/**
 * The key of the migration lock: Kysely's own (its PostgresAdapter), so that a build that takes it Kysely's way and
 * this one exclude each other while both run in a rolling deploy (session and transaction advisory locks of one key
 * conflict).
 */
export const MIGRATION_LOCK = '3853314791062309107';

/**
 * What each transaction of the migrator does first, on its connection: no statement timeout for the migrations (a
 * table rebuilt can take longer than any request, whatever the role's own setting), then the migration lock, waited
 * for an hour at most (as Kysely does), held until the transaction ends.
 */
const LOCKED = [
  'SET LOCAL statement_timeout = 0',
  'SET LOCAL lock_timeout = 3600000',
  `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`,
  'SET LOCAL lock_timeout TO DEFAULT',
];

/**
 * Kysely's PostgreSQL dialect over `pool`, for the migrator (migrate.ts), with its migration lock held by the
 * transaction of the migrations instead of the session: Kysely takes a session-level advisory lock on a connection,
 * then runs every pending migration in a transaction, then unlocks. Behind a transaction-mode pooler the lock, the
 * transaction and the unlock may each reach another backend: the lock would stay with one that others use next, and
 * an instance starting beside it would wait for it an hour. Here the lock is the first statement of the transaction
 * (pg_advisory_xact_lock), so it goes when the transaction ends, on every pooler: instances that start together still
 * migrate once, the others finding, once the lock is theirs, that nothing is left to apply.
 */
export function migrationDialect(kysely: typeof import('kysely'), pool: pg.Pool): Dialect {
  const { CompiledQuery, PostgresAdapter, PostgresDialect, PostgresDriver } = kysely;
  const config = { pool };
  class LockingDriver extends PostgresDriver {
    override async beginTransaction(
      connection: DatabaseConnection,
      settings: TransactionSettings,
    ): Promise<void> {
      await super.beginTransaction(connection, settings);
      for (const statement of LOCKED) await connection.executeQuery(CompiledQuery.raw(statement));
    }
  }
  // the migrator's own lock around its transaction: none, the transaction takes it
  class TransactionLockAdapter extends PostgresAdapter {
    override acquireMigrationLock(): Promise<void> {
      return Promise.resolve();
    }
    override releaseMigrationLock(): Promise<void> {
      return Promise.resolve();
    }
  }
  class MigrationDialect extends PostgresDialect {
    override createDriver(): Driver {
      return new LockingDriver(config);
    }
    override createAdapter(): DialectAdapter {
      return new TransactionLockAdapter();
    }
  }
  return new MigrationDialect(config);
}
