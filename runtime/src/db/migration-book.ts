import type { Kysely } from 'kysely';
import type { Database, Row } from './database.js';
import { migrations } from './migrations/index.js';

/**
 * The book of migrations applied: Kysely's table `restsmith_migrations` (one row each, by name, with when), and the
 * column restsmith adds to it, `additive` (1 or 0; NULL until it is recorded), so that a build that does not know a
 * migration reads there whether it may run on the database (SPEC §11, rolling deploys and rollback): it may when
 * every migration applied that it does not know is additive.
 */
export const MIGRATION_TABLE = 'restsmith_migrations';

/** One migration the book holds. */
export interface Applied {
  name: string;
  /** as recorded; null where it is not (yet): a migration applied before the marks were, or read by no build since */
  additive: boolean | null;
}

/** This build's migrations against the book. */
export interface Standing {
  /** every migration the book holds, in name order */
  applied: Applied[];
  /** this build's migrations not applied yet, in name order */
  pending: string[];
  /** migrations applied that this build does not have (a newer build's, or another branch's) */
  unknown: Applied[];
  /** this build's migrations applied with no mark recorded (db/migrate.ts records them) */
  unmarked: string[];
}

/** Whether this build's migration `name` is additive: as its file says (absent, in older files: not). */
export const isAdditive = (name: string): boolean => migrations[name]?.additive === true;

/**
 * The book as it is now, in one query (Kysely is not loaded); no table yet is a book with nothing applied. Read
 * outside the migration lock: another instance migrating commits all it applies at once (on PostgreSQL), so a read
 * sees all of it or none.
 */
export async function readStanding(db: Database): Promise<Standing> {
  const rows = await readBook(db, (await migrationTable(db)).qualified);
  const applied = rows
    .map((row): Applied => {
      const mark = row.additive;
      return {
        name: String(row.name),
        additive: mark === null || mark === undefined ? null : Number(mark) === 1,
      };
    })
    .sort((a, b) => compare(a.name, b.name));
  const done = new Set(applied.map((m) => m.name));
  const known = Object.keys(migrations).sort(compare);
  return {
    applied,
    pending: known.filter((name) => !done.has(name)),
    unknown: applied.filter((m) => migrations[m.name] === undefined),
    unmarked: applied
      .filter((m) => migrations[m.name] !== undefined && m.additive === null)
      .map((m) => m.name),
  };
}

async function readBook(db: Database, table: string): Promise<Row[]> {
  try {
    // SQLite prepares at once, and throws there for a table that is not there
    return await db.prepareText(`SELECT * FROM ${table}`, { transient: true }).all([]);
  } catch (error) {
    if (noTable(error)) return [];
    throw error;
  }
}

/** SQLite's "no such table", PostgreSQL's undefined_table (42P01). */
const noTable = (error: unknown): boolean =>
  error instanceof Error &&
  ((error as { code?: unknown }).code === '42P01' || /^no such table/.test(error.message));

/** Name order: migrations are named by their number first (`0002-…`), so it is the order they are applied in. */
export const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Why this build cannot run on the database, or undefined when it can: it is missing a migration the book holds
 * that is not additive (or not marked so), or it has one not applied under migrations it does not have, which
 * cannot be applied after them.
 */
export function refusalOf({ pending, unknown }: Standing): string | undefined {
  if (unknown.length === 0) return undefined;
  const breaking = unknown.filter((m) => m.additive !== true).map((m) => m.name);
  if (breaking.length > 0) {
    const one = breaking.length === 1;
    return (
      `the database was migrated by a build this one is older than, with ${one ? 'a migration' : 'migrations'} ` +
      `that ${one ? 'is' : 'are'} not additive: ${breaking.join(', ')}; this build cannot run on it ` +
      `(run a build that has ${one ? 'it' : 'them'}, or restore the database from before ${one ? 'it' : 'them'})`
    );
  }
  if (pending.length > 0) {
    return (
      `this build's migrations ${pending.join(', ')} are not applied, but the database holds migrations it does not ` +
      `have (${unknown.map((m) => m.name).join(', ')}), which they cannot follow: run the build that has those`
    );
  }
  return undefined;
}

/**
 * Records the mark of every migration of this build the book holds without one (`names`), adding the column to a
 * book that has none (a database migrated by an older runtime: its rows are kept, their marks filled in here).
 * Through Kysely's connection, outside its migration lock: each statement is idempotent, and two instances that run
 * them together write the same marks. A migration just applied is unmarked until this runs (the same start, just
 * after): an older build that reads the book then takes it as not additive and refuses, until started again.
 */
export async function recordMarks(
  db: Database,
  names: readonly string[],
  kysely?: Kysely<unknown>,
): Promise<void> {
  if (names.length === 0) return;
  // `kysely`: the one that applied migrations; else this is the first start since an upgrade, which loads it
  const [{ sql }, connection, table] = await Promise.all([
    import('kysely'),
    kysely ?? db.kysely(),
    migrationTable(db),
  ]);
  if (db.dialect === 'postgres') {
    await sql
      .raw(`ALTER TABLE ${table.qualified} ADD COLUMN IF NOT EXISTS "additive" INTEGER`)
      .execute(connection);
  } else {
    const columns = await sql<{ name: string }>`PRAGMA table_info(${sql.raw(table.qualified)})`.execute(
      connection,
    );
    if (!columns.rows.some((column) => column.name === 'additive')) {
      await sql
        .raw(`ALTER TABLE ${table.qualified} ADD COLUMN "additive" INTEGER`)
        .execute(connection)
        .catch((error: unknown) => {
          // another process added it since
          if (!/duplicate column/i.test(error instanceof Error ? error.message : '')) throw error;
        });
    }
  }
  await connection.transaction().execute(async (trx) => {
    for (const name of names) {
      const mark = isAdditive(name) ? 1 : 0;
      await sql`UPDATE ${sql.raw(table.qualified)} SET "additive" = ${mark} WHERE "name" = ${name} AND "additive" IS NULL`.execute(
        trx,
      );
    }
  });
}

/** Where the book is: the schema PostgreSQL creates tables in (see `currentSchema`), and the table's name there. */
export interface MigrationTable {
  schema: string | undefined;
  qualified: string;
}

const tables = new WeakMap<Database, MigrationTable>();

export async function migrationTable(db: Database): Promise<MigrationTable> {
  const known = tables.get(db);
  if (known !== undefined) return known;
  const schema = db.dialect === 'postgres' ? await currentSchema(db) : undefined;
  const table = {
    schema,
    qualified:
      schema === undefined ? quoted(MIGRATION_TABLE) : `${quoted(schema)}.${quoted(MIGRATION_TABLE)}`,
  };
  tables.set(db, table);
  return table;
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

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

/** What the server last read of the book (see `pendingMigrations`), by database. */
const seen = new WeakMap<
  Database,
  { pending: readonly string[]; at: number; reading?: Promise<readonly string[]> }
>();

/** Notes what this process knows is pending (db/migrate.ts, after it migrated: nothing). */
export function notePending(db: Database, pending: readonly string[]): void {
  seen.set(db, { pending, at: Date.now() });
}

/**
 * This build's migrations not applied yet (none: the database is up to date for it). Read from the book at most once
 * a second while some are; once none are, never again (a build's migrations, once applied, stay so), and not at all
 * after a start that migrated. Rejects when the database cannot answer.
 */
export async function pendingMigrations(db: Database): Promise<readonly string[]> {
  const last = seen.get(db);
  if (last?.reading !== undefined) return last.reading;
  if (last !== undefined && (last.pending.length === 0 || Date.now() - last.at < 1000)) return last.pending;
  const reading = readStanding(db).then(
    ({ pending }) => {
      notePending(db, pending);
      return pending;
    },
    (error: unknown) => {
      if (last === undefined) seen.delete(db);
      else seen.set(db, last);
      throw error;
    },
  );
  seen.set(db, { pending: last?.pending ?? [], at: last?.at ?? 0, reading });
  return reading;
}
