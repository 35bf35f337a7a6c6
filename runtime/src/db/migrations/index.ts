// A STAND-IN, never copied into a project: restsmith writes each project's src/db/migrations/index.ts, which lists
// its migrations (templates/project/src/db/migrations/index.ts.hbs).
import type { Dialect } from '../database.js';

/**
 * The statements of one migration, in every dialect, and whether it is additive: a build from before it still runs
 * on the database it leaves (new tables, new nullable or defaulted columns, new indexes). The mark is recorded with
 * the migration in the database (db/migration-book.ts), where such a build reads it. Absent (migrations written by a
 * restsmith from before the marks): not additive.
 */
export type MigrationSql = Readonly<Record<Dialect, readonly string[]>> & { readonly additive?: boolean };

export const migrations: Record<string, MigrationSql> = {};
