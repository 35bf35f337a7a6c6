import type { Kysely, Migration, sql as Sql } from 'kysely';
import type { Database, Dialect } from './database.js';
import { migrations, type MigrationSql } from './migrations/index.js';

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Kysely's table of the migrations applied: one row each, by name. */
const TABLE = 'restsmith_migrations';

/**
 * Applies every pending migration, in name order, and records it in the table `restsmith_migrations`. On SQLite each
 * runs in its own transaction; on PostgreSQL, Kysely runs all pending ones in one transaction under an advisory lock.
 * A failing migration leaves the database as it was (on PostgreSQL, as it was before the pending ones) and throws.
 * When every migration is applied already (most starts), one query says so and Kysely is not even loaded: a server
 * holds about 10 MB less memory for its life.
 */
export async function migrate(db: Database): Promise<string[]> {
  const schema =
    db.dialect === 'postgres'
      ? await currentSchema(db).catch((error: unknown) => {
          throw new MigrationError(`cannot migrate the database: ${reasonOf(error)}`);
        })
      : undefined;
  if (await upToDate(db, schema)) return [];
  const [{ Migrator, sql }, kysely] = await Promise.all([import('kysely'), db.kysely()]);
  const migrator = new Migrator({
    db: kysely,
    provider: { getMigrations: async () => toKysely(db.dialect, sql) },
    migrationTableName: TABLE,
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
  return results.map((result) => result.migrationName);
}

/**
 * Whether the migrations applied are exactly this code's, read in one query without Kysely. Anything else — no table
 * yet, one missing, one this code does not know, an error — is left to the migrator, which applies what is pending
 * or says what is wrong. Read outside its lock: another instance migrating commits all it applies at once (on
 * PostgreSQL), so a read sees all of it or none. The order they were applied in is not checked, which the migrator
 * would (a table edited by hand so that a later name has an earlier timestamp): all of them are applied either way.
 */
async function upToDate(db: Database, schema: string | undefined): Promise<boolean> {
  const table = schema === undefined ? `"${TABLE}"` : `${quoted(schema)}."${TABLE}"`;
  try {
    const rows = await db.prepareText(`SELECT "name" FROM ${table}`, { transient: true }).all([]);
    const applied = rows.map((row) => String(row.name)).sort();
    const known = Object.keys(migrations).sort();
    return applied.length === known.length && applied.every((name, i) => name === known[i]);
  } catch {
    return false;
  }
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** What went wrong, in the database's own words where a translated error keeps them (a ConstraintError's cause). */
const reasonOf = (error: unknown): string => {
  const own = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return own instanceof Error ? own.message || own.name : String(own);
};

/**
 * The schema PostgreSQL creates tables in (the first of the search_path that exists), where the migration tables
 * are. Kysely, told none, looks for its tables by name in every schema: a database whose `public` holds this API's
 * tables, used with another search_path (the generated tests' own schema, one schema per tenant), found public's and
 * never made its own. Undefined when no schema of the search_path exists (Kysely's default then).
 */
async function currentSchema(db: Database): Promise<string | undefined> {
  const row = await db.prepareText('SELECT current_schema() AS schema', { transient: true }).get([]);
  return typeof row?.schema === 'string' ? row.schema : undefined;
}

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
