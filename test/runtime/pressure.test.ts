import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';
import { installPressure } from '../../runtime/src/http/pressure.js';
import { block, saturateEventLoop } from '../helpers/event-loop.js';

describe('a saturated event loop', () => {
  it('answers 503 with Retry-After at once, except /healthz', async () => {
    const app = Fastify();
    installErrorHandlers(app);
    await installPressure(app, 50);
    app.get('/healthz', { config: { pressureExempt: true } }, async () => ({ status: 'ok' }));
    app.get('/posts', async () => ({ items: [] }));
    await app.ready();
    try {
      expect((await app.inject('/posts')).statusCode).toBe(200);
      await saturateEventLoop();
      const refused = await app.inject('/posts');
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(refused.body)).toMatchObject({
        status: 503,
        detail: 'the server is overloaded: try again shortly',
      });
      expect((await app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('does not count the work of its own start', async () => {
    const app = Fastify();
    installErrorHandlers(app);
    await installPressure(app, 50);
    app.get('/posts', async () => ({ items: [] }));
    // a start that holds the loop (schemas compiled, statements prepared) across a sampling second, then ready
    for (let i = 0; i < 6; i += 1) {
      block(200);
      await new Promise((wait) => setImmediate(wait));
    }
    await app.ready();
    try {
      // over the next second and a half the loop is free: every request is served, none answered 503
      const statuses: number[] = [];
      for (let i = 0; i < 15; i += 1) {
        statuses.push((await app.inject('/posts')).statusCode);
        await new Promise((wait) => setTimeout(wait, 100));
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('is not watched when MAX_EVENT_LOOP_DELAY is 0', async () => {
    const app = Fastify();
    await installPressure(app, 0);
    await app.ready();
    expect(app.hasDecorator('isUnderPressure')).toBe(false);
    await app.close();
  });
});
