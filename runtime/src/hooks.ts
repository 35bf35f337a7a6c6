import type { FastifyInstance } from 'fastify';

/**
 * Your hooks and plugins, registered before every route. restsmith created this file once and never
 * rewrites it. For example:
 *
 *   app.addHook('onRequest', async (request) => request.log.debug({ url: request.url }, 'hello'));
 *   await app.register(import('@fastify/cors'), { origin: 'https://example.com' });
 */
export async function registerHooks(app: FastifyInstance): Promise<void> {
  app.log.debug('no hooks registered (see src/hooks.ts)');
}
