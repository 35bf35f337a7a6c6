import {
  notScheme,
  readPooler,
  readScanSettings,
  statementTimeoutMs,
  type Pooler,
  type ScanSettings,
} from '../config.js';
import type { Database } from './database.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

export class DatabaseUrlError extends Error {
  override name = 'DatabaseUrlError';
}

/**
 * Opens the database a `DATABASE_URL` names: `sqlite:./data/app.db`, `sqlite::memory:` or
 * `postgres://user:password@host:5432/database` (a pool of `poolSize` connections, whose statements run at most
 * `timeoutMs`: DATABASE_STATEMENT_TIMEOUT unless given). Listing statements that scan a table run under the caps
 * `scans` (DATABASE_SCAN_* unless given, see config.ts), and answer within `timeoutMs` on either database. `pooler`
 * (DATABASE_POOLER unless given): whether PostgreSQL is reached through a pooler in transaction mode (see config.ts).
 */
export function openDatabase(
  url: string,
  poolSize = 10,
  timeoutMs = statementTimeoutMs(process.env.DATABASE_STATEMENT_TIMEOUT),
  scans: ScanSettings = readScanSettings(process.env),
  pooler: Pooler = readPooler(process.env.DATABASE_POOLER),
): Database {
  if (url.startsWith('sqlite://')) {
    throw new DatabaseUrlError(
      `DATABASE_URL takes a path after "sqlite:" (sqlite:./data/app.db or sqlite:/var/data/app.db), not "sqlite://"`,
    );
  }
  const limits = { ...scans, timeoutMs };
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), limits);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://'))
    return openPostgres(url, poolSize, timeoutMs, limits, pooler);
  throw new DatabaseUrlError(`DATABASE_URL must start with "sqlite:" or "postgres://"${notScheme(url)}`);
}
