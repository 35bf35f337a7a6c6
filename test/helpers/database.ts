import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * The database end-to-end tests run generated servers on: SQLite by default, PostgreSQL when scripts/test.sh
 * sets RESTSMITH_TEST_DB=postgres (with RESTSMITH_TEST_PG_URL, a throwaway server it started).
 */
export const ON_POSTGRES = process.env.RESTSMITH_TEST_DB === 'postgres';

function postgresBase(): string {
  const base = process.env.RESTSMITH_TEST_PG_URL;
  if (base === undefined || base === '') {
    throw new Error('PostgreSQL tests need RESTSMITH_TEST_PG_URL: run them through `npm test` (scripts/test.sh)');
  }
  return base;
}

/**
 * A DATABASE_URL for one test server: `sqlite` (a file under the project, or `sqlite::memory:`) on SQLite; on
 * PostgreSQL, a new empty database of its own.
 */
export async function databaseUrl(name: string, sqlite = 'sqlite::memory:'): Promise<string> {
  if (!ON_POSTGRES) return sqlite;
  const database = `rs_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: postgresBase() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  const url = new URL(postgresBase());
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Runs one statement straight on a test server's database (what no API call can do), `?` for parameters;
 * `dir` is the project a relative SQLite path is under.
 */
export async function runSql(
  url: string,
  dir: string,
  text: string,
  params: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(join(dir, url.slice('sqlite:'.length)));
    try {
      const statement = db.prepare(text);
      return statement.reader
        ? (statement.all(...params) as Record<string, unknown>[])
        : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }
  let n = 0;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (
      await client.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
