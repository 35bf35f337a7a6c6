import { get } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, http, startServer, typecheckAndBuild, WORK, type RunningServer } from '../helpers/project.js';
import { SECRET } from '../helpers/tokens.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * SPEC §11 "Drain": on SIGTERM /readyz answers 503 at once while the API serves for SHUTDOWN_DELAY; then the server
 * stops accepting, answers what is in flight with `Connection: close`, ends its event streams with a `retry:` hint
 * and exits 0 within SHUTDOWN_TIMEOUT; under load, no client sees a reset and no acknowledged write is lost.
 */
const DEFINITION = `
name: drain
version: 1.0.0
prefix: /api/v1
auth: { default: public }
events: {}
resources:
  orders:
    fields:
      item: { type: string, required: true }
`;

let dir: string;
const env = (more: Record<string, string> = {}) => ({ JWT_SECRET: SECRET, ...more });
const exitOf = (server: RunningServer) =>
  new Promise<{ code: number | null; at: number }>((done) =>
    server.process.once('exit', (code) => done({ code, at: Date.now() })),
  );
const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));
let restarted: RunningServer | undefined;

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'e2e-drain.yaml');
  writeFileSync(file, DEFINITION);
  dir = await generateFresh(file, 'e2e-drain');
  await typecheckAndBuild(dir);
});

afterAll(async () => {
  await restarted?.stop();
});

describe('SIGTERM', () => {
  it('makes /readyz answer 503 at once, while the API serves for SHUTDOWN_DELAY; then the server exits 0', async () => {
    const url = await databaseUrl('drain-ready');
    const server = await startServer(dir, env({ DATABASE_URL: url, SHUTDOWN_DELAY: '2000' }), '/api/v1/readyz');
    const api = `${server.url}/api/v1`;
    expect((await http('GET', `${api}/readyz`)).status).toBe(200);
    const exited = exitOf(server);
    const signalled = Date.now();
    server.process.kill('SIGTERM');
    // the signal is handled on the server's next turn: the first 503 comes within a few ms
    let ready = await http('GET', `${api}/readyz`);
    for (let i = 0; i < 50 && ready.status === 200; i += 1) {
      await sleep(10);
      ready = await http('GET', `${api}/readyz`);
    }
    expect(Date.now() - signalled).toBeLessThan(1000);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(ready.body).toMatchObject({ status: 503, detail: 'not ready: the server is shutting down' });
    // the rest is served as before, the liveness probe included
    expect((await http('GET', `${api}/livez`)).status).toBe(200);
    const created = await http('POST', `${api}/orders`, { item: 'during the delay' });
    expect(created.status).toBe(201);
    expect((await http('GET', `${api}/orders/${(created.body as { id: string }).id}`)).status).toBe(200);
    expect(Date.now() - signalled).toBeLessThan(2000);
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - signalled).toBeGreaterThanOrEqual(2000);
    expect(server.output()).not.toMatch(/"level":50/);
  });

  it('under 8 clients writing on keep-alive connections: no reset, every acknowledged write kept, exit 0 in time', async () => {
    const url = await databaseUrl('drain-load', 'sqlite:./data/drain-load.db');
    const timeoutMs = 10_000;
    const server = await startServer(
      dir,
      env({ DATABASE_URL: url, SHUTDOWN_DELAY: '1000', SHUTDOWN_TIMEOUT: String(timeoutMs), LOG_LEVEL: 'info' }),
      '/api/v1/readyz',
    );
    const api = `${server.url}/api/v1`;
    const acknowledged: { id: string; at: number }[] = [];
    const failures: string[] = [];
    let refused = 0;
    let stopped = false;
    // each client writes one order after another on its keep-alive connection (fetch's pool) until the server is
    // gone; bounded: 3,000 writes a client at most
    const writer = async (n: number): Promise<void> => {
      for (let i = 0; !stopped && i < 3000; i += 1) {
        try {
          const r = await http('POST', `${api}/orders`, { item: `writer ${n} write ${i}` });
          if (r.status === 201) acknowledged.push({ id: (r.body as { id: string }).id, at: Date.now() });
          else failures.push(`${r.status} ${r.text}`);
        } catch (error) {
          const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
          // a new connection to a server that no longer listens: refused, never sent
          if (code === 'ECONNREFUSED') {
            refused += 1;
            if (server.process.exitCode !== null) return;
            await sleep(5);
          } else failures.push(`${code ?? ''} ${(error as Error).message}`);
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, n) => writer(n));
    while (acknowledged.length < 200) await sleep(10);
    const exited = exitOf(server);
    const signalled = Date.now();
    server.process.kill('SIGTERM');
    const { code, at } = await exited;
    stopped = true;
    await Promise.all(writers);

    expect(failures).toEqual([]); // no ECONNRESET, no "other side closed", no 5xx
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(timeoutMs);
    expect(at - signalled).toBeGreaterThanOrEqual(1000);
    // the API was served during the delay, and clients came back to a closed port after it
    expect(acknowledged.filter((a) => a.at > signalled + 100).length).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(server.output()).toMatch(/"msg":"stopped"/);

    restarted = await startServer(dir, env({ DATABASE_URL: url }), '/api/v1/readyz');
    const missing: string[] = [];
    for (const { id } of acknowledged) {
      if ((await http('GET', `${restarted.url}/api/v1/orders/${id}`)).status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
  });

  it('ends an open event stream with a retry: hint before the connection closes', async () => {
    const server = await startServer(
      dir,
      env({ DATABASE_URL: await databaseUrl('drain-sse'), SHUTDOWN_DELAY: '300' }),
      '/api/v1/readyz',
    );
    const exited = exitOf(server);
    const text = await new Promise<string>((resolve, reject) => {
      let received = '';
      const request = get(`${server.url}/api/v1/events/stream`, { agent: false }, (response) => {
        expect(response.statusCode).toBe(200);
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          received += chunk;
          // the stream is open: its first message came
          if (/streaming events after/.test(received) && server.process.exitCode === null)
            server.process.kill('SIGTERM');
        });
        response.on('end', () => resolve(received));
        response.on('error', reject);
      });
      request.on('error', reject);
      setTimeout(() => reject(new Error(`the stream did not end: ${received}`)), 10_000).unref();
    });
    const messages = text.split('\n\n').filter((message) => message !== '');
    expect(messages[0]).toMatch(/^retry: 2000\n: streaming events after \d+$/);
    const last = messages.at(-1) ?? '';
    expect(last).toMatch(/^retry: \d{4}\n: the server is shutting down: reconnect with Last-Event-ID$/);
    const retry = Number(/^retry: (\d+)/.exec(last)?.[1]);
    expect(retry).toBeGreaterThanOrEqual(1000);
    expect(retry).toBeLessThan(5000);
    expect((await exited).code).toBe(0);
  });

  it('answers a request in flight when the server stops accepting with Connection: close, then closes it', async () => {
    // debug: the server logs each request as it arrives, so the test knows when the first one is in flight
    const server = await startServer(
      dir,
      env({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'debug' }),
      '/api/v1/readyz',
    );
    const body = JSON.stringify({ item: 'in flight' });
    const logged = async (line: RegExp): Promise<void> => {
      for (let waited = 0; !line.test(server.output()); waited += 10) {
        if (waited > 10_000) throw new Error(`the server never logged ${line}:\n${server.output()}`);
        await sleep(10);
      }
    };
    const exited = exitOf(server);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
        // half its body sent when SIGTERM comes; the rest once the server no longer accepts connections
        socket.write(
          `POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        socket.write(body.slice(0, 5));
        logged(/"method":"POST","url":"\/api\/v1\/orders"/)
          .then(() => {
            server.process.kill('SIGTERM');
            return logged(/no longer accepting connections/);
          })
          .then(() => socket.write(body.slice(5)), reject);
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(raw).toMatch(/\r\nconnection: close\r\n/i);
    expect(raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect((await exited).code).toBe(0);
  });
});
