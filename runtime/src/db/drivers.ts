import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';

const require = createRequire(import.meta.url);
let pgModule: typeof pg | undefined;
let sqliteModule: typeof BetterSqlite3 | undefined;

/**
 * The database drivers, each loaded when a database of its kind is first opened (both are CommonJS packages, so
 * `openDatabase` stays synchronous): a server on SQLite never loads pg (about 4 MB of memory), nor one on PostgreSQL
 * better-sqlite3 and its native library. Kept here once loaded: these are called on every query's path.
 */
export const loadPg = (): typeof pg => (pgModule ??= require('pg') as typeof pg);
export const loadBetterSqlite3 = (): typeof BetterSqlite3 =>
  (sqliteModule ??= require('better-sqlite3') as typeof BetterSqlite3);
