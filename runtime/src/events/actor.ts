import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The request a write is made for, wherever the write is (a route, a hook, your handler): the `actor` of its event is
 * the subject of that request's verified token (the access guard's `request.scope`). Installed only when the
 * definition has `events`: an AsyncLocalStorage costs a little on every request.
 */
const requests = new AsyncLocalStorage<FastifyRequest>();

/** Runs every request's hooks and handler inside its own context; the first hook of all. */
export function trackActors(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => requests.run(request, done));
}

/** The subject of the current request's verified token; null outside a request, or without a token. */
export function currentActor(): string | null {
  const request = requests.getStore();
  // `scope` is set by the access guard; a route without one (your own) has the decorator's null
  const scope = request?.scope as FastifyRequest['scope'] | null | undefined;
  return scope?.caller?.subject ?? null;
}
