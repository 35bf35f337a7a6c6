import { request as httpRequest, Agent } from 'node:http';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { closingResponses, Lifecycle } from '../../runtime/src/lifecycle.js';
import { secretWarnings } from '../../runtime/src/serve.js';
import { readShutdown } from '../../runtime/src/shutdown.js';

/** GET `path` on a keep-alive agent: the status and the Connection header of the answer. */
function get(port: number, path: string, agent: Agent): Promise<{ status: number; connection: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, connection: String(response.headers.connection) }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the lifecycle', () => {
  it('is not ready from the moment it drains, and runs what waits for its stop once', () => {
    const lifecycle = new Lifecycle();
    const stops: string[] = [];
    lifecycle.onStop(() => stops.push('first'));
    expect([lifecycle.state, lifecycle.readiness()]).toEqual(['serving', undefined]);
    lifecycle.drain();
    expect([lifecycle.state, lifecycle.readiness(), stops]).toEqual(['draining', 'the server is shutting down', []]);
    lifecycle.stop();
    lifecycle.stop();
    lifecycle.onStop(() => stops.push('late'));
    expect([lifecycle.state, lifecycle.stopping, stops]).toEqual(['stopping', true, ['first', 'late']]);
  });

  it('keeps connections alive until it stops; then every answer closes its connection, one in flight included', async () => {
    const lifecycle = new Lifecycle();
    const app = Fastify({ http: { ServerResponse: closingResponses(lifecycle) } });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.get('/quick', async () => ({ ok: true }));
    app.get('/held', async () => {
      await held;
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await get(port, '/quick', agent)).toEqual({ status: 200, connection: 'keep-alive' });
      lifecycle.drain();
      expect(await get(port, '/quick', agent)).toEqual({ status: 200, connection: 'keep-alive' });
      const inFlight = get(port, '/held', agent);
      await new Promise((wait) => setTimeout(wait, 50));
      lifecycle.stop();
      release();
      expect(await inFlight).toEqual({ status: 200, connection: 'close' });
      expect(await get(port, '/quick', agent)).toEqual({ status: 200, connection: 'close' });
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});

describe('the shutdown settings', () => {
  it.each([
    [{}, { delayMs: 5000, timeoutMs: 20_000 }],
    [{ npm_lifecycle_event: 'dev' }, { delayMs: 0, timeoutMs: 20_000 }],
    [
      { npm_lifecycle_event: 'dev', SHUTDOWN_DELAY: '300' },
      { delayMs: 300, timeoutMs: 20_000 },
    ],
    [
      { SHUTDOWN_DELAY: '0', SHUTDOWN_TIMEOUT: '0' },
      { delayMs: 0, timeoutMs: 0 },
    ],
    [
      { SHUTDOWN_DELAY: '10000', SHUTDOWN_TIMEOUT: '0' },
      { delayMs: 10_000, timeoutMs: 0 },
    ],
    [
      { SHUTDOWN_DELAY: '1000', SHUTDOWN_TIMEOUT: '3000' },
      { delayMs: 1000, timeoutMs: 3000 },
    ],
  ])('%o', (env, settings) => expect(readShutdown(env)).toEqual(settings));

  it.each([
    [
      { SHUTDOWN_DELAY: '20000' },
      'SHUTDOWN_TIMEOUT (20000 ms) must be longer than SHUTDOWN_DELAY (20000 ms), or 0 for no limit',
    ],
    [{ SHUTDOWN_DELAY: '5 s' }, 'SHUTDOWN_DELAY must be a whole number of milliseconds (0: none), not "5 s"'],
    [{ SHUTDOWN_TIMEOUT: '-1' }, 'SHUTDOWN_TIMEOUT must be a whole number of milliseconds (0: no limit), not "-1"'],
  ])('refuses %o', (env, message) => expect(() => readShutdown(env)).toThrow(message));
});

describe('the secrets in production', () => {
  const JWT_SECRET = 'a-jwt-secret-of-32-bytes-or-more!!!!';
  const cursor = 'CURSOR_SECRET is not set: page cursors are signed with a key derived from JWT_SECRET';
  const webhook =
    'WEBHOOK_SECRET_KEY is not set: webhook signing secrets are sealed with a key derived from JWT_SECRET';
  it.each([
    [{ NODE_ENV: 'production', JWT_SECRET }, true, [cursor, webhook]],
    [{ NODE_ENV: 'production', JWT_SECRET }, false, [cursor]],
    [{ NODE_ENV: 'production', JWT_SECRET, CURSOR_SECRET: 'c' }, true, []],
    [{ NODE_ENV: 'production', JWT_SECRET, WEBHOOK_SECRET_KEY: 'w' }, true, [cursor]],
    [{ NODE_ENV: 'production', JWT_SECRET, WEBHOOK_KEY: 'w' }, true, [cursor]],
    [{ NODE_ENV: 'production' }, true, []],
    [{ JWT_SECRET }, true, []],
  ])('%o, webhooks %o', (env, webhooks, warnings) => expect(secretWarnings(env, webhooks)).toEqual(warnings));
});
