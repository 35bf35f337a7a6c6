import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { serviceUnavailable } from './problem.js';

/**
 * While the thread that serves HTTP is saturated (its event loop's mean delay over the last second above `maxDelayMs`,
 * MAX_EVENT_LOOP_DELAY, default 1000 ms; 0: never), a request is answered at once 503 with Retry-After, rather than
 * queued behind the others (@fastify/under-pressure). /healthz is exempt: it says whether the process and its database
 * answer, and an orchestrator should not restart an instance for being busy (its 503s tell clients to come back).
 */
export async function installPressure(app: FastifyInstance, maxDelayMs: number): Promise<void> {
  if (maxDelayMs === 0) return;
  await app.register(underPressure, {
    maxEventLoopDelay: maxDelayMs,
    // a rejection is the request's error: its problem document, with Retry-After (under-pressure's own says 10 s)
    pressureHandler: (request) =>
      request.routeOptions.config.pressureExempt === true
        ? undefined
        : Promise.reject(serviceUnavailable('the server is overloaded: try again shortly')),
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the route is served even while the server is saturated (see installPressure) */
    pressureExempt?: boolean;
  }
}
