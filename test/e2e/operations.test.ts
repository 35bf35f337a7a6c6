import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  dir = await generateFresh(`${ROOT}/test/e2e/fixtures/shop.yaml`, 'e2e-shutdown');
  await typecheckAndBuild(dir);
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
