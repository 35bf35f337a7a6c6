import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { Database, Dialect } from './database.js';
import { migrations, type MigrationSql } from './migrations/index.js';

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/**
 * Applies every pending migration, in name order, and records it in the table `restsmith_migrations`. On SQLite each
 * runs in its own transaction; on PostgreSQL, Kysely runs all pending ones in one transaction under an advisory lock.
 * A failing migration leaves the database as it was (on PostgreSQL, as it was before the pending ones) and throws.
 */
export async function migrate(db: Database): Promise<string[]> {
  const schema =
    db.dialect === 'postgres'
      ? await currentSchema(db.kysely).catch((error: unknown) => {
          throw new MigrationError(`cannot migrate the database: ${reasonOf(error)}`);
        })
      : undefined;
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => toKysely(db.dialect) },
    migrationTableName: 'restsmith_migrations',
    migrationLockTableName: 'restsmith_migrations_lock',
    ...(schema !== undefined && { migrationTableSchema: schema }),
  });
  // SQLite rebuilds tables to change them: with foreign keys on, dropping the old table would cascade.
  // They are off while migrations run, and each migration checks them before it commits (see apply).
  if (db.dialect === 'sqlite') await sql`PRAGMA foreign_keys = OFF`.execute(db.kysely);
  const { error, results = [] } = await migrator.migrateToLatest().finally(async () => {
    if (db.dialect === 'sqlite') await sql`PRAGMA foreign_keys = ON`.execute(db.kysely);
  });
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const reason = reasonOf(error);
    // no migration ran: the database could not be reached, or its migration tables not read
    if (failed === undefined) throw new MigrationError(`cannot migrate the database: ${reason}`);
    throw new MigrationError(`migration ${failed} failed, the database is unchanged: ${reason}`);
  }
  return results.map((result) => result.migrationName);
}

const reasonOf = (error: unknown): string =>
  error instanceof Error ? error.message || error.name : String(error);

/**
 * The schema PostgreSQL creates tables in (the first of the search_path that exists), where the migration tables
 * are. Kysely, told none, looks for its tables by name in every schema: a database whose `public` holds this API's
 * tables, used with another search_path (the generated tests' own schema, one schema per tenant), found public's and
 * never made its own. Undefined when no schema of the search_path exists (Kysely's default then).
 */
async function currentSchema(kysely: Kysely<unknown>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(kysely);
  return rows[0]?.schema ?? undefined;
}

function toKysely(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrations).map(([name, steps]) => [name, { up: (db) => apply(db, steps, dialect) }]),
  );
}

async function apply(db: Kysely<unknown>, steps: MigrationSql, dialect: Dialect): Promise<void> {
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
