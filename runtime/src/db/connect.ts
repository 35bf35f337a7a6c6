import { milliseconds } from '../config.js';
import { DatabaseUnavailableError, reasonOf, type Database } from './database.js';

/** DATABASE_CONNECT_TIMEOUT: how long a starting server waits for its database, in ms (30000 unless set; 0: once). */
export const readConnectTimeout = (env: NodeJS.ProcessEnv): number =>
  milliseconds('DATABASE_CONNECT_TIMEOUT', env.DATABASE_CONNECT_TIMEOUT, 30_000, 'try once');

/** The database did not answer within DATABASE_CONNECT_TIMEOUT, or refused the server: it does not start. */
export class DatabaseConnectError extends Error {
  override name = 'DatabaseConnectError';
}

/** One failed try, as `connect` reports it before the next. */
export interface ConnectRetry {
  attempt: number;
  /** the next try is in this many ms */
  retryInMs: number;
  /** why this one failed, in the driver's words */
  reason: string;
}

/** The first wait between two tries, doubled after each up to MAX_DELAY_MS. */
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;

/**
 * Errors that waiting may mend, besides DatabaseUnavailableError (refused, unreachable, starting up, out of
 * connections): a database not created yet (PostgreSQL's 3D000: a deployment that creates it beside the server), a
 * host name not resolvable yet (EAI_AGAIN), a SQLite file another process holds locked. A password refused or a URL
 * that names no database server is not retried: it fails at once.
 */
const RETRIED_CODES = new Set(['3D000', 'EAI_AGAIN', 'SQLITE_BUSY']);

const retried = (error: unknown): boolean =>
  error instanceof DatabaseUnavailableError ||
  (error instanceof Error && RETRIED_CODES.has(String((error as NodeJS.ErrnoException).code)));

/**
 * Waits until `db` answers a statement: tries again after 0.25 s, 0.5 s, 1 s… (at most 5 s apart, spread by up to a
 * fifth so that instances starting together do not try in step) while the error is one waiting may mend, reporting
 * each failed try to `retrying`, for `timeoutMs` in all (0: one try). Then throws a DatabaseConnectError that says
 * for how long and why, in one line; an error waiting cannot mend (a password refused) is thrown at once, as one.
 */
export async function connect(
  db: Database,
  timeoutMs: number,
  retrying: (retry: ConnectRetry) => void,
): Promise<void> {
  const started = Date.now();
  for (let attempt = 1, delay = FIRST_DELAY_MS; ; attempt += 1, delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    const left = started + timeoutMs - Date.now();
    const error = await within(db.ping(), Math.max(left, FIRST_DELAY_MS)).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    if (error === undefined) return;
    const reason = reasonOf(error);
    if (!retried(error))
      throw new DatabaseConnectError(`the database refused the server: ${reason}`, { cause: error });
    const retryInMs = Math.round(delay * (0.8 + Math.random() * 0.4));
    if (Date.now() + retryInMs > started + timeoutMs) {
      throw new DatabaseConnectError(
        `the database did not answer within DATABASE_CONNECT_TIMEOUT (${timeoutMs} ms), after ${attempt} tries: ${reason}`,
        { cause: error },
      );
    }
    retrying({ attempt, retryInMs, reason });
    await new Promise((wait) => setTimeout(wait, retryInMs));
  }
}

/** `promise`, or a DatabaseUnavailableError after `ms`: a try never outlasts what is left of the timeout by much. */
async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(`no answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
