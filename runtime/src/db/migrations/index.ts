// A STAND-IN, never copied into a project: restsmith writes each project's src/db/migrations/index.ts, which lists
// its migrations (templates/project/src/db/migrations/index.ts.hbs).
import type { Dialect } from '../database.js';

export type MigrationSql = Record<Dialect, readonly string[]>;

export const migrations: Record<string, MigrationSql> = {};
