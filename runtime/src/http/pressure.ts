import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { serviceUnavailable } from './problem.js';
import { refusing } from './refusals.js';

/**
 * While the thread that serves HTTP is saturated (its event loop's mean delay over the last second above `maxDelayMs`,
 * MAX_EVENT_LOOP_DELAY, default 1000 ms; 0: never), a request is answered at once 503 with Retry-After, rather than
 * queued behind the others. /healthz is exempt: it says whether the process and its database answer, and an
 * orchestrator should not restart an instance for being busy (its 503s tell clients to come back).
 *
 * @fastify/under-pressure measures the delay (given no threshold, it adds no hook of its own); a timer reads it once a
 * second into a flag, and a request looks at the flag alone. Its own hook reads `request.routeOptions` on every
 * request (Fastify makes that object at each read): GET of one record cost 5 to 10% more CPU.
 */
export async function installPressure(app: FastifyInstance, maxDelayMs: number): Promise<void> {
  if (maxDelayMs === 0) return;
  await app.register(underPressure, { sampleInterval: SAMPLE_MS });
  let saturated = false;
  let timer: NodeJS.Timeout | undefined;
  // read from the first full second after the server is ready: the second before it holds its start (compiling
  // schemas, preparing statements), which would answer its first requests 503 on a busy machine
  app.addHook('onReady', (done) => {
    let started = false;
    timer = setInterval(() => {
      const delay = app.memoryUsage().eventLoopDelay;
      if (started) saturated = delay > maxDelayMs;
      started = true;
    }, SAMPLE_MS);
    timer.unref();
    done();
  });
  app.addHook('onClose', (_app, done) => {
    clearInterval(timer);
    done();
  });
  const refuse: onRequestHookHandler = (request, _reply, done) => {
    if (!saturated || request.routeOptions.config.pressureExempt === true) return done();
    done(refusing(serviceUnavailable('the server is overloaded: try again shortly'), 'overloaded'));
  };
  app.addHook('onRequest', refuse);
}

const SAMPLE_MS = 1000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the route is served even while the server is saturated (see installPressure) */
    pressureExempt?: boolean;
  }
}
