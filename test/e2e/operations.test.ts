import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import {
  generateFresh,
  http,
  ROOT,
  startServer,
  startToFailure,
  typecheckAndBuild,
  type RunningServer,
} from '../helpers/project.js';

let dir: string;
let url: string;
let restarted: RunningServer | undefined;

beforeAll(async () => {
  dir = await generateFresh(`${ROOT}/test/e2e/fixtures/shop.yaml`, 'e2e-shutdown');
  await typecheckAndBuild(dir);
  url = await databaseUrl('shutdown', 'sqlite:./data/shutdown.db');
});

afterAll(async () => {
  await restarted?.stop();
});

describe('graceful shutdown', () => {
  it('on SIGTERM stops accepting, finishes the writes in flight and keeps every write it acknowledged', async () => {
    const server = await startServer(dir, { DATABASE_URL: url });
    const acknowledged: string[] = [];
    let refused = 0;
    const unavailable: { type: string | null; retryAfter: string | null; status: unknown }[] = [];
    let running = true;
    // 8 clients write as fast as they can until the server is gone (bounded: at most 2,000 writes each)
    const writer = async (n: number): Promise<void> => {
      for (let i = 0; running && i < 2000; i += 1) {
        try {
          const r = await http('POST', `${server.url}/orders`, { item: `writer ${n} write ${i}` });
          if (r.status === 201) acknowledged.push((r.body as { id: string }).id);
          else refused += 1;
          if (r.status === 503) {
            const status = (r.body as { status?: unknown } | undefined)?.status;
            unavailable.push({ type: r.headers.get('content-type'), retryAfter: r.headers.get('retry-after'), status });
          }
        } catch {
          refused += 1; // the connection was closed or refused: the server has stopped accepting
          if (server.process.exitCode !== null) return;
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, n) => writer(n));
    while (acknowledged.length < 200) await new Promise((wait) => setTimeout(wait, 10));
    const exited = new Promise<number | null>((done) => server.process.once('exit', (code) => done(code)));
    server.process.kill('SIGTERM');
    const code = await exited;
    running = false;
    await Promise.all(writers);

    expect(code).toBe(0); // it exited on its own: server closed, requests finished, database closed
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    expect(refused).toBeGreaterThan(0); // writes kept coming after SIGTERM and were not accepted
    // one that reached it while it was closing got a problem document saying to retry
    for (const answer of unavailable) {
      expect(answer).toEqual({ type: 'application/problem+json; charset=utf-8', retryAfter: '1', status: 503 });
    }

    restarted = await startServer(dir, { DATABASE_URL: url });
    const missing: string[] = [];
    for (const id of acknowledged) {
      if ((await http('GET', `${restarted.url}/orders/${id}`)).status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
  });
});

describe('a request that arrives during shutdown', () => {
  it('gets a 503 problem with Retry-After, while the request in flight on its connection finishes', async () => {
    // debug: the server logs each request as it arrives, so the test knows when the first one is in flight
    const server = await startServer(dir, { DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'debug' });
    const body = JSON.stringify({ item: 'in flight' });
    // waits for a line of the server's log
    const logged = async (line: RegExp): Promise<void> => {
      for (let waited = 0; !line.test(server.output()); waited += 10) {
        if (waited > 10_000) throw new Error(`the server never logged ${line}:\n${server.output()}`);
        await new Promise((wait) => setTimeout(wait, 10));
      }
    };
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
        // the first request is in flight (half its body sent) when SIGTERM comes; the second follows it
        socket.write(
          `POST /orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        socket.write(body.slice(0, 5));
        logged(/"method":"POST","url":"\/orders"/)
          .then(() => {
            server.process.kill('SIGTERM');
            return logged(/"msg":"shutting down"/);
          })
          .then(() => socket.write(`${body.slice(5)}GET /orders HTTP/1.1\r\nHost: x\r\n\r\n`), reject);
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    await server.stop();
    const [first, second] = raw.split(/(?=HTTP\/1\.1 )/);
    expect(first?.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(second?.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(second).toMatch(/retry-after: 1/i);
    expect(second).toMatch(/connection: close/i);
    const id = /x-request-id: ([^\r]+)/i.exec(second ?? '')?.[1];
    expect(JSON.parse(second?.split('\r\n\r\n')[1] ?? '')).toEqual({
      // the origin is the one the request named (Host: x)
      type: 'http://x/problems/unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'the server is shutting down: try again',
      instance: `urn:request:${id}`,
    });
  });
});

describe('settings a server refuses at start, in one line', () => {
  it.each([
    [{ DATABASE_URL: 'sqlite://./data/x.db' }, /^DatabaseUrlError: DATABASE_URL takes a path after "sqlite:"/],
    [
      { DATABASE_URL: 'mysql://localhost/x' },
      /^DatabaseUrlError: DATABASE_URL must start with "sqlite:" or "postgres:\/\/"/,
    ],
    [{ DATABASE_POOL_SIZE: '0x10' }, /^ConfigError: DATABASE_POOL_SIZE must be a whole number from 1 to 1000/],
    [{ REDIS_URL: 'localhost:6379' }, /^ConfigError: REDIS_URL must start with "redis:\/\/" or "rediss:\/\/"/],
  ])('%o', async (env, message) => {
    const failed = await startToFailure(dir, { DATABASE_URL: 'sqlite::memory:', ...env });
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(message);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('rate limits with a Redis that cannot be reached', () => {
  it('serves requests unlimited and warns once', async () => {
    const server = await startServer(dir, {
      DATABASE_URL: 'sqlite::memory:',
      RATE_LIMIT_MAX: '2',
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) statuses.push((await http('GET', `${server.url}/orders`)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      expect(server.output().match(/Redis is not reachable/g)).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });
});

describe('requests that are not well-formed', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(dir, { DATABASE_URL: 'sqlite::memory:' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers bytes no URL may hold with a problem document, from below Fastify', async () => {
    const { port } = new URL(server.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          Buffer.concat([
            Buffer.from('GET /orders?item='),
            Buffer.from([0xc3, 0x89]),
            Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
          ]),
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(raw).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(raw.split('\r\n\r\n')[1] ?? '')).toMatchObject({ status: 400, title: 'Bad Request' });
  });

  it('answers a path it cannot decode with a problem document', async () => {
    const r = await http('GET', `${server.url}/orders/%E0%A4%A`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(r.body).toMatchObject({ status: 400, detail: 'the request URL is not valid' });
  });
});

describe('a client that sends too slowly', () => {
  it('has its request cut off after REQUEST_TIMEOUT with a 408 problem, and others are served meanwhile', async () => {
    const server = await startServer(dir, { DATABASE_URL: 'sqlite::memory:', REQUEST_TIMEOUT: '1500' });
    try {
      const started = Date.now();
      const port = Number(new URL(server.url).port);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            'POST /orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
          );
        });
        // one byte every 200 ms: the body would take 200 s (bounded: the interval stops when the socket closes)
        const trickle = setInterval(() => socket.writable && socket.write(' '), 200);
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('close', () => {
          clearInterval(trickle);
          resolve(text);
        });
        socket.on('error', () => undefined);
        setTimeout(() => reject(new Error(`still open after 15 s: ${text}`)), 15_000).unref();
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(raw).toMatch(/^HTTP\/1\.1 408/);
      expect(raw).toContain('application/problem+json');
      expect((await http('GET', `${server.url}/orders`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('refuses a timeout that is not a whole number of milliseconds, in one line', async () => {
    const failure = await startToFailure(dir, { DATABASE_URL: 'sqlite::memory:', REQUEST_TIMEOUT: '30s' });
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('REQUEST_TIMEOUT must be a whole number of milliseconds');
  });
});

describe('a server that cannot listen', () => {
  it('stops before it opens or migrates the database (the one on that port keeps its schema)', async () => {
    const running = await startServer(dir, { DATABASE_URL: 'sqlite::memory:' });
    try {
      const port = new URL(running.url).port;
      // startToFailure picks a free port: this one must be the taken one (bounded: it exits or is killed in 20 s)
      const failure = await promisify(execFile)(process.execPath, ['dist/main.js'], {
        cwd: dir,
        timeout: 20_000,
        env: { ...process.env, PORT: port, HOST: '127.0.0.1', DATABASE_URL: 'sqlite:./data/never-opened.db' },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(failure.code).toBe(1);
      expect(failure.stderr.trim()).toBe(`ConfigError: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
      expect(existsSync(join(dir, 'data/never-opened.db'))).toBe(false);
    } finally {
      await running.stop();
    }
  });
});
