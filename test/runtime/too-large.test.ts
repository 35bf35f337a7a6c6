import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorHandler, installErrorHandlers, LINGER_LIMIT, LINGER_MS } from '../../runtime/src/http/errors.js';
import { BODY_LIMIT } from '../../runtime/src/settings.js';

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  // the generated server's body limit, error handlers and request timeout (shortened)
  app = Fastify({
    bodyLimit: BODY_LIMIT,
    clientErrorHandler,
    requestTimeout: 1000,
    http: { connectionsCheckingInterval: 100 },
  });
  installErrorHandlers(app);
  app.post('/items', async (request) => ({ got: typeof request.body }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});

afterAll(async () => {
  await app.close();
});

/** Writes `head`, then `rest` (if any) as fast as the socket takes it; everything the server sent until it closed. */
function exchange(head: string, rest?: Buffer, trickle = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      if (rest !== undefined) socket.write(rest);
    });
    // one byte every 50 ms after the head (bounded: stops when the socket closes)
    const timer = trickle ? setInterval(() => socket.writable && socket.write(' '), 50) : undefined;
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(text);
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 15 s: ${text}`));
    }, 15_000).unref();
  });
}

const post = (length: number) =>
  `POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('a body over the limit', () => {
  it('is answered 413 every time, never a reset, however the client is writing it', async () => {
    // Fastify used to close at once: Node's fetch then failed with EPIPE a few times in a hundred on loopback
    const body = JSON.stringify({ text: 'x'.repeat(BODY_LIMIT + 50_000) });
    const failures: string[] = [];
    for (let i = 0; i < 150; i++) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/items`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const problem = (await response.json()) as { status: number };
        if (response.status !== 413 || problem.status !== 413) failures.push(`answered ${response.status}`);
      } catch (error) {
        failures.push(String((error as { cause?: unknown }).cause ?? error));
      }
    }
    expect(failures).toEqual([]);
  });

  it('keeps the connection: the rest of the body is read and dropped, and the next request is served', async () => {
    const body = Buffer.alloc(BODY_LIMIT + 10, ' ');
    const next = `${post(2)}{}`.replace('Content-Type', 'Connection: close\r\nContent-Type');
    const raw = await exchange(post(body.length), Buffer.concat([body, Buffer.from(next)]));
    const answers = raw.match(/HTTP\/1\.1 \d{3}/g);
    expect(answers).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
    expect(raw).toContain('application/problem+json');
    expect(raw).toContain('{"got":"object"}');
  });

  it('closes the connection at once when the declared body is longer than LINGER_LIMIT', async () => {
    // only the head is sent: the answer comes before any of the body, and the server hangs up
    const raw = await exchange(post(LINGER_LIMIT + 1));
    expect(raw).toMatch(/^HTTP\/1\.1 413/);
    expect(raw.toLowerCase()).toContain('connection: close');
  });

  it('closes the connection after LINGER_MS when the rest trickles in', async () => {
    const started = Date.now();
    const raw = await exchange(post(BODY_LIMIT * 2), undefined, true);
    expect(raw).toMatch(/^HTTP\/1\.1 413/);
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(Date.now() - started).toBeLessThan(LINGER_MS + 3000);
  }, 20_000);
});
