import type { Kysely, Migration, sql as Sql } from 'kysely';
import { ConfigError } from '../config.js';
import { reasonOf, type Database, type Dialect } from './database.js';
import {
  MIGRATION_TABLE,
  migrationTable,
  notePending,
  readStanding,
  recordMarks,
  refusalOf,
} from './migration-book.js';
import { migrations, type MigrationSql } from './migrations/index.js';

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/**
 * `start`, a server's start (main.ts): applies what is pending, unless MIGRATE_ON_START=false leaves that to
 * `npm run migrate` (the server then answers 503 until it has run: http/pending-migrations.ts); `apply`
 * (`npm run migrate`, the generated tests): applies what is pending.
 */
export type MigrateMode = 'start' | 'apply';

/**
 * Applies every pending migration, in name order, and records it in the table `restsmith_migrations`, with whether
 * it is additive (db/migration-book.ts). On SQLite each runs in its own transaction; on PostgreSQL, Kysely runs all
 * pending ones in one transaction under an advisory lock. A failing migration leaves the database as it was (on
 * PostgreSQL, as it was before the pending ones) and throws. When every migration is applied already (most starts),
 * one query says so and Kysely is not even loaded: a server holds about 10 MB less memory for its life.
 *
 * A database a newer build migrated holds migrations this build does not have: when every one of them is additive,
 * this build runs on it as it is (a rollback, or a pod of the older build restarted mid-rollout); else this throws,
 * naming them. That is checked in every mode, MIGRATE_ON_START=false included.
 */
export async function migrate(db: Database, mode: MigrateMode = 'start'): Promise<string[]> {
  const applying = mode === 'apply' || migrateOnStart(process.env.MIGRATE_ON_START);
  const standing = await readStanding(db).catch((error: unknown) => {
    throw new MigrationError(`cannot migrate the database: ${reasonOf(error)}`);
  });
  const refused = refusalOf(standing);
  if (refused !== undefined) throw new MigrationError(refused);
  if (!applying || standing.unknown.length > 0 || standing.pending.length === 0) {
    // the marks of a book an older runtime kept are filled in by the first start that may write (or npm run migrate)
    if (applying) await recordMarks(db, standing.unmarked).catch(cannotRecord);
    notePending(db, standing.pending);
    return [];
  }
  const { schema } = await migrationTable(db);
  const [{ Migrator, sql }, kysely] = await Promise.all([import('kysely'), db.kysely()]);
  const migrator = new Migrator({
    db: kysely,
    provider: { getMigrations: async () => toKysely(db.dialect, sql) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: 'restsmith_migrations_lock',
    ...(schema !== undefined && { migrationTableSchema: schema }),
  });
  // SQLite rebuilds tables to change them: with foreign keys on, dropping the old table would cascade.
  // They are off while migrations run, and each migration checks them before it commits (see apply).
  if (db.dialect === 'sqlite') await sql`PRAGMA foreign_keys = OFF`.execute(kysely);
  const { error, results = [] } = await migrator.migrateToLatest().finally(async () => {
    if (db.dialect === 'sqlite') await sql`PRAGMA foreign_keys = ON`.execute(kysely);
  });
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const reason = reasonOf(error);
    // no migration ran: the database could not be reached, or its migration tables not read
    if (failed === undefined) throw new MigrationError(`cannot migrate the database: ${reason}`);
    throw new MigrationError(`migration ${failed} failed, the database is unchanged: ${reason}`);
  }
  // every migration of this build: those another instance applied meanwhile are marked as well
  await recordMarks(db, Object.keys(migrations), kysely).catch(cannotRecord);
  notePending(db, []);
  return results.map((result) => result.migrationName);
}

/** MIGRATE_ON_START: `true` unless set to `false`. */
export function migrateOnStart(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(`MIGRATE_ON_START must be true or false, not "${value}"`);
}

const cannotRecord = (error: unknown): never => {
  throw new MigrationError(`cannot record the migrations' marks: ${reasonOf(error)}`);
};

function toKysely(dialect: Dialect, sql: typeof Sql): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrations).map(([name, steps]) => [name, { up: (db) => apply(db, steps, dialect, sql) }]),
  );
}

async function apply(
  db: Kysely<unknown>,
  steps: MigrationSql,
  dialect: Dialect,
  sql: typeof Sql,
): Promise<void> {
  // On PostgreSQL, Kysely runs every migration in a transaction holding an advisory lock: instances that start
  // together migrate once, one after the other. It does not on SQLite; this does, so each applies whole or not at all.
  if (dialect === 'postgres') {
    for (const statement of steps.postgres) await sql.raw(statement).execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const statement of steps[dialect]) await sql.raw(statement).execute(trx);
    if (dialect === 'sqlite') {
      const broken = await sql<{ table: string }>`PRAGMA foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) {
        throw new Error(
          `it would leave ${broken.rows.length} rows referring to records that do not exist (in ${broken.rows[0]?.table})`,
        );
      }
    }
  });
}
