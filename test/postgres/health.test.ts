import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import {
  freePort,
  generateFresh,
  http,
  ROOT,
  startServer,
  startToFailure,
  typecheckAndBuild,
  type RunningServer,
} from '../helpers/project.js';

/**
 * SPEC §11 on PostgreSQL, the database a server reaches over the network: /livez answers while the database cannot
 * be reached and /readyz does not; a server started before its database is reachable (a port opened later, a
 * database created later) comes up once it is, within DATABASE_CONNECT_TIMEOUT, and exits 1 in one line past it.
 * The database is reached through a TCP proxy of the test's own on 127.0.0.1, which it opens and closes.
 */

let dir: string;

beforeAll(async () => {
  dir = await generateFresh(`${ROOT}/test/e2e/fixtures/shop.yaml`, 'pg-health');
  await typecheckAndBuild(dir);
});

/** A TCP proxy on 127.0.0.1:`port` to PostgreSQL; `close` also cuts the connections it carries. */
function proxy(port: number, to: URL) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(to.port), to.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return {
    open: () => new Promise<void>((done) => server.listen(port, '127.0.0.1', () => done())),
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/** `url` (a database of the test PostgreSQL) through 127.0.0.1:`port`. */
const through = (url: string, port: number): string => {
  const moved = new URL(url);
  moved.host = `127.0.0.1:${port}`;
  return moved.toString();
};

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

describe('a database that cannot be reached while the server runs', () => {
  let server: RunningServer;
  let way: ReturnType<typeof proxy>;
  afterAll(async () => {
    await server?.stop();
    await way?.close();
  });

  it('leaves /livez 200 and makes /readyz and /healthz 503, until it is back', async () => {
    const url = await databaseUrl('health-down');
    const port = await freePort();
    way = proxy(port, new URL(url));
    await way.open();
    server = await startServer(dir, { DATABASE_URL: through(url, port) });
    for (const path of ['/livez', '/readyz', '/healthz'])
      expect((await http('GET', `${server.url}${path}`)).status).toBe(200);

    await way.close();
    const ready = await http('GET', `${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 503, detail: 'not ready: the database cannot be reached' });
    expect((await http('GET', `${server.url}/healthz`)).status).toBe(503);
    expect(await http('GET', `${server.url}/livez`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect((await http('GET', `${server.url}/orders`)).status).toBe(503);

    await way.open();
    expect((await http('GET', `${server.url}/readyz`)).status).toBe(200);
    expect((await http('GET', `${server.url}/orders`)).status).toBe(200);
  });
});

describe('a database that cannot be reached when the server starts', () => {
  it('is waited for: the server comes up once a port to it opens, 2 s later, each try logged', async () => {
    const url = await databaseUrl('health-late-port');
    const port = await freePort();
    const way = proxy(port, new URL(url));
    const starting = startServer(dir, { DATABASE_URL: through(url, port) });
    try {
      await sleep(2000);
      await way.open();
      const server = await starting;
      try {
        expect((await http('GET', `${server.url}/readyz`)).status).toBe(200);
        expect(server.output()).toMatch(
          /the database cannot be reached \(connect ECONNREFUSED 127\.0\.0\.1:\d+\): trying again in \d+ ms/,
        );
      } finally {
        await server.stop();
      }
    } finally {
      await way.close();
    }
  });

  it('is waited for: the server comes up once its database is created, 2 s later', async () => {
    const base = process.env.RESTSMITH_TEST_PG_URL ?? '';
    const name = `rs_health_late_${randomBytes(4).toString('hex')}`;
    const url = new URL(base);
    url.pathname = `/${name}`;
    const starting = startServer(dir, { DATABASE_URL: url.toString() });
    await sleep(2000);
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(`CREATE DATABASE "${name}"`).finally(() => client.end());
    const server = await starting;
    try {
      expect((await http('GET', `${server.url}/readyz`)).status).toBe(200);
      expect(server.output()).toContain(`database \\"${name}\\" does not exist`);
    } finally {
      await server.stop();
    }
  });

  it('exits 1 in one line past DATABASE_CONNECT_TIMEOUT', async () => {
    const url = await databaseUrl('health-never');
    const started = Date.now();
    const failed = await startToFailure(dir, {
      DATABASE_URL: through(url, await freePort()),
      DATABASE_CONNECT_TIMEOUT: '1500',
    });
    // tries at 0, ~0.25 and ~0.75 s; it gives up when the next wait would pass the 1.5 s: after 0.6 s at least
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(
      /^DatabaseConnectError: the database did not answer within DATABASE_CONNECT_TIMEOUT \(1500 ms\), after [2-9] tries: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
    );
  });

  it('does not wait for a database that refuses its user: one line at once', async () => {
    const url = new URL(await databaseUrl('health-user'));
    url.username = 'no_such_role';
    const started = Date.now();
    const failed = await startToFailure(dir, { DATABASE_URL: url.toString() });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(
      /^DatabaseConnectError: the database refused the server: role "no_such_role" does not exist$/,
    );
  });
});
