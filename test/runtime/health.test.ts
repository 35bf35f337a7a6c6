import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect, DatabaseConnectError, readConnectTimeout, type ConnectRetry } from '../../runtime/src/db/connect.js';
import { DatabaseUnavailableError, type Database } from '../../runtime/src/db/database.js';
import { readDocs } from '../../runtime/src/http/docs.js';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';
import { CHECK_TIMEOUT_MS, installHealth, notReady, type ReadinessCheck } from '../../runtime/src/http/health.js';
import { installPressure } from '../../runtime/src/http/pressure.js';
import { saturateEventLoop } from '../helpers/event-loop.js';

/** A database whose ping answers as `ping` says (only ping is asked of it here). */
const databaseOf = (ping: () => Promise<void>): Database => ({ ping }) as unknown as Database;
const up = databaseOf(async () => undefined);
const down = databaseOf(async () => {
  throw new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:5432');
});

afterEach(() => {
  vi.useRealTimers();
});

async function healthApp(db: Database, checks: ReadinessCheck[] = []) {
  const app = Fastify();
  installErrorHandlers(app);
  installHealth(app, db, checks);
  await app.ready();
  return app;
}

describe('the health routes', () => {
  it('answer 200 {"status":"ok"} while the database and every check answer', async () => {
    const app = await healthApp(up, [() => undefined, async () => undefined]);
    for (const path of ['/livez', '/readyz', '/healthz']) {
      const r = await app.inject(path);
      expect([path, r.statusCode, r.json()]).toEqual([path, 200, { status: 'ok' }]);
    }
    await app.close();
  });

  it('leave /livez 200 while the database is down, and /readyz and /healthz answer a 503 problem', async () => {
    const app = await healthApp(down);
    expect((await app.inject('/livez')).statusCode).toBe(200);
    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(ready.json()).toMatchObject({ status: 503, detail: 'not ready: the database cannot be reached' });
    expect((await app.inject('/healthz')).statusCode).toBe(503);
    await app.close();
  });

  it('name every reason of /readyz, a check that throws or never answers included', async () => {
    vi.useFakeTimers();
    const checks: ReadinessCheck[] = [
      () => 'the server is shutting down',
      () => undefined,
      async () => {
        throw new Error('the cache is gone');
      },
      () => new Promise<undefined>(() => undefined),
    ];
    const reasons = notReady(checks);
    await vi.advanceTimersByTimeAsync(CHECK_TIMEOUT_MS);
    expect(await reasons).toEqual([
      'the server is shutting down',
      'the cache is gone',
      `a check did not answer within ${CHECK_TIMEOUT_MS} ms`,
    ]);
  });

  it('are answered while the event loop is saturated, and every other route is not', async () => {
    const app = Fastify();
    installErrorHandlers(app);
    await installPressure(app, 50);
    installHealth(app, up, []);
    app.get('/posts', async () => ({ items: [] }));
    await app.ready();
    try {
      // the loop is held, as a long statement holds it
      await saturateEventLoop();
      expect((await app.inject('/posts')).statusCode).toBe(503);
      for (const path of ['/livez', '/readyz', '/healthz']) expect((await app.inject(path)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('waiting for the database at start', () => {
  it('tries again with growing waits while it is unavailable, and returns once it answers', async () => {
    let failures = 3;
    const db = databaseOf(async () => {
      if (failures-- > 0) throw new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:5432');
    });
    const retries: ConnectRetry[] = [];
    await connect(db, 10_000, (retry) => retries.push(retry));
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(retries.every((r) => r.reason === 'connect ECONNREFUSED 127.0.0.1:5432')).toBe(true);
    // 250, 500, 1000 ms, each spread by a fifth at most
    const waits = retries.map((r) => r.retryInMs);
    [250, 500, 1000].forEach((ms, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(ms * 0.8);
      expect(waits[i]).toBeLessThanOrEqual(ms * 1.2);
    });
  });

  it('waits for a database that does not exist yet (PostgreSQL 3D000)', async () => {
    let failures = 1;
    const db = databaseOf(async () => {
      if (failures-- > 0) throw Object.assign(new Error('database "shop" does not exist'), { code: '3D000' });
    });
    const retries: ConnectRetry[] = [];
    await connect(db, 5000, (retry) => retries.push(retry));
    expect(retries).toHaveLength(1);
  });

  it('gives up past the timeout, in one line that says why', async () => {
    const started = Date.now();
    const attempt = connect(down, 600, () => undefined);
    await expect(attempt).rejects.toThrow(DatabaseConnectError);
    await expect(attempt).rejects.toThrow(
      /^the database did not answer within DATABASE_CONNECT_TIMEOUT \(600 ms\), after \d tries: connect ECONNREFUSED 127\.0\.0\.1:5432$/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('does not wait for an error waiting cannot mend', async () => {
    const refused = databaseOf(async () => {
      throw Object.assign(new Error('role "nobody" does not exist'), { code: '28000' });
    });
    const retries: ConnectRetry[] = [];
    await expect(connect(refused, 10_000, (retry) => retries.push(retry))).rejects.toThrow(
      'the database refused the server: role "nobody" does not exist',
    );
    expect(retries).toEqual([]);
  });

  it('reads DATABASE_CONNECT_TIMEOUT in milliseconds, 30000 unless set', () => {
    expect(readConnectTimeout({})).toBe(30_000);
    expect(readConnectTimeout({ DATABASE_CONNECT_TIMEOUT: '0' })).toBe(0);
    expect(readConnectTimeout({ DATABASE_CONNECT_TIMEOUT: '1500' })).toBe(1500);
    expect(() => readConnectTimeout({ DATABASE_CONNECT_TIMEOUT: '30s' })).toThrow(
      'DATABASE_CONNECT_TIMEOUT must be a whole number of milliseconds (0: try once), not "30s"',
    );
  });
});

describe('DOCS', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['true', true],
    ['false', false],
  ])('%o: %o', (value, served) => expect(readDocs(value)).toBe(served));

  it('refuses anything else', () => {
    expect(() => readDocs('0')).toThrow('DOCS must be true or false, not "0"');
  });
});
