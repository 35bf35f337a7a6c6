// Created by restsmith once. This file is yours: restsmith never overwrites it.

import type { FastifyInstance } from 'fastify';

/**
 * Your hooks and plugins, registered before every route. restsmith created this file once and never
 * rewrites it. For example:
 *
 *   app.addHook('onRequest', async (request) => request.log.debug({ url: request.url }, 'hello'));
 *   await app.register(import('@fastify/helmet'));   // after `npm install @fastify/helmet`
 *
 * (CORS is the definition's `cors`, not a plugin here.)
 */
export async function registerHooks(app: FastifyInstance): Promise<void> {
  app.log.debug('no hooks registered (see src/hooks.ts)');
}
