import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';
import { refuseOtherMethodsLater, routeEveryMethod } from '../../runtime/src/http/methods.js';

/** Every known path answers the methods it does not take 405 with Allow, however its routes were written. */
describe('refuseOtherMethodsLater', () => {
  it('takes /x and /x/ as one path, and params of other names as one (found by a reviewer: a start-up crash)', async () => {
    const app = Fastify({ ignoreTrailingSlash: true });
    routeEveryMethod(app);
    installErrorHandlers(app);
    const refuse = refuseOtherMethodsLater(app);
    app.get('/r/slash', async () => 'get');
    app.post('/r/slash/', async () => 'post');
    app.get('/r/items/:id', async () => 'get');
    app.delete('/r/items/:itemId', async () => 'delete');
    app.get('/files/*', async () => 'file');
    // a HEAD route of its own (found by a reviewer: Allow named POST alone)
    app.route({ method: ['HEAD', 'POST'], url: '/r/ping', handler: async () => '' });
    refuse();
    await app.ready();
    const put = await app.inject({ method: 'PUT', url: '/r/slash' });
    expect([put.statusCode, put.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    expect((await app.inject({ method: 'POST', url: '/r/slash' })).statusCode).toBe(200);
    const patch = await app.inject({ method: 'PATCH', url: '/r/items/1' });
    expect([patch.statusCode, patch.headers.allow]).toEqual([405, 'DELETE, GET, HEAD']);
    const ping = await app.inject({ method: 'PUT', url: '/r/ping' });
    expect([ping.statusCode, ping.headers.allow]).toEqual([405, 'HEAD, POST']);
    // wildcards are left alone
    expect((await app.inject({ method: 'POST', url: '/files/a' })).statusCode).toBe(404);
    await app.close();
  });
});
