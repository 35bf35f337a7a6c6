import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ADMIN_ROLE, buildApp, PREFIX } from '../../src/app.js';
import { signToken } from '../../src/auth/sign.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';

/**
 * What the generated tests run against: the server as `npm start` builds it, listening on 127.0.0.1 on a free port,
 * over a throwaway database — a SQLite file of its own, or, when TEST_DATABASE_URL names a PostgreSQL database, a
 * schema of its own in it (dropped afterwards: nothing of the database's own is touched).
 */
export interface TestApi {
  /** calls the API over HTTP: `path` after the prefix; `token` null for none */
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<Answer>;
  close(): Promise<void>;
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Answer {
  status: number;
  headers: Headers;
  /** the JSON body, or undefined (no body) */
  body: Json | undefined;
}

/**
 * A table restsmith derived from the definition for the generated tests: test/generated/<name>.json (rewritten by every
 * `restsmith generate`, as the tests are), in the shape its test file declares.
 */
export function table<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./${name}.json`, import.meta.url), 'utf8')) as T;
}

/** The key the tests' server verifies tokens with; tokens are signed by the project's own code (src/auth/sign.ts). */
export const SECRET = randomBytes(32).toString('hex');

/** The administrator's subject in the tests' tokens. */
export const ADMINISTRATOR = 'test-administrator';

/** Tokens of each kind the access rules tell apart. */
export const tokens = {
  of: (subject: string, roles: readonly string[] = []): Promise<string> =>
    signToken(SECRET, { subject, roles, expires: '10m' }),
  /** the administrator, who passes every rule: what the tests make records and read listings as */
  administrator: (): Promise<string> =>
    signToken(SECRET, { subject: ADMINISTRATOR, roles: [ADMIN_ROLE], expires: '10m' }),
  /** valid in every way but its expiry, which has passed */
  expired: (): Promise<string> =>
    signToken(SECRET, { subject: 'someone', expires: Math.floor(Date.now() / 1000) - 60 }),
  /** signed with another key */
  badlySigned: (): Promise<string> => signToken(`not-${SECRET}`, { subject: 'someone', roles: [] }),
};

/**
 * Takes the record at `url` through `actions`, one POST after the other as the administrator, each a 200: the record
 * as the last left it (undefined when there were none).
 */
export async function takeActions(
  api: Pick<TestApi, 'call'>,
  url: string,
  actions: readonly string[],
): Promise<JsonObject | undefined> {
  let record: JsonObject | undefined;
  for (const action of actions) {
    const answer = await api.call('POST', `${url}/${action}`, { token: await tokens.administrator() });
    assert.equal(answer.status, 200, `POST ${url}/${action}: ${JSON.stringify(answer.body)}`);
    record = answer.body as JsonObject;
  }
  return record;
}

/** A schema of its own in the PostgreSQL database of `url`, and the URL that works in it. */
async function throwawaySchema(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `restsmith_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const inSchema = new URL(url);
  inSchema.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: inSchema.toString(),
    drop: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

export async function startApi(): Promise<TestApi> {
  const postgres = process.env.TEST_DATABASE_URL;
  const dir = postgres === undefined ? mkdtempSync(join(tmpdir(), 'api-test-')) : undefined;
  const schema = postgres === undefined ? undefined : await throwawaySchema(postgres);
  const db = openDatabase(schema?.url ?? `sqlite:${join(dir ?? '.', 'test.db')}`);
  const cleanUp = async (): Promise<void> => {
    await db.close();
    await schema?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
  let app: Awaited<ReturnType<typeof buildApp>>;
  let address: string;
  try {
    // a throwaway database: migrated whatever MIGRATE_ON_START says
    await migrate(db, 'apply');
    // the tests make many requests from one address: the rate limit is not what they test
    app = await buildApp({ db, auth: { secret: SECRET }, rateLimitMax: 1_000_000 });
    address = await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    // an API that cannot start leaves no open pool behind (the tests would never end) and no schema
    await cleanUp();
    throw error;
  }
  return {
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token !== undefined && options.token !== null)
        headers.authorization = `Bearer ${options.token}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${address}${PREFIX}${path}`, {
        method,
        headers,
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text === '' ? undefined : (JSON.parse(text) as Json),
      };
    },
    async close() {
      await app.close();
      await cleanUp();
    },
  };
}
