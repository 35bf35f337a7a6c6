import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, loadBuilt, ROOT, typecheckAndBuild } from '../helpers/project.js';

/** PostgreSQL cancels a statement of a request that runs longer than DATABASE_STATEMENT_TIMEOUT: a 503, not a held connection. */
let dist: string;

beforeAll(async () => {
  const dir = await generateFresh(join(ROOT, 'test/e2e/fixtures/shop.yaml'), 'pg-timeouts');
  await typecheckAndBuild(dir);
  dist = join(dir, 'dist');
});

interface OpenModule {
  openDatabase: (
    url: string,
    poolSize?: number,
    timeoutMs?: number,
  ) => {
    prepareText: (text: string) => { get: (params: readonly unknown[]) => Promise<unknown> };
    close: () => Promise<void>;
  };
}

describe('statement timeout', () => {
  it('cancels a statement that runs too long, as a database that cannot answer now', async () => {
    const { openDatabase } = await loadBuilt<OpenModule>(dist, 'db/open.js');
    const db = openDatabase(await databaseUrl('timeouts'), 2, 200);
    try {
      const started = Date.now();
      const error = await db
        .prepareText('SELECT pg_sleep(5)')
        .get([])
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((error as Error).name).toBe('DatabaseUnavailableError');
      expect(Date.now() - started).toBeLessThan(3000);
      // the connection is free again for the next statement
      expect(await db.prepareText('SELECT 1 AS one').get([])).toEqual({ one: 1 });
    } finally {
      await db.close();
    }
  });

  it('is read from DATABASE_STATEMENT_TIMEOUT, and a bad value stops the server at start', async () => {
    const { statementTimeoutMs } = await loadBuilt<{
      statementTimeoutMs: (value: string | undefined) => number;
    }>(dist, 'config.js');
    expect(statementTimeoutMs(undefined)).toBe(10_000);
    expect(statementTimeoutMs('0')).toBe(0);
    expect(statementTimeoutMs('2500')).toBe(2500);
    expect(() => statementTimeoutMs('10s')).toThrow(
      /DATABASE_STATEMENT_TIMEOUT must be a whole number of milliseconds/,
    );
  });
});
