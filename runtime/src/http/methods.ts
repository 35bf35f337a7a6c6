import { METHODS as NODE_METHODS } from 'node:http';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { HttpProblem } from './problem.js';

/** Every method Node's HTTP server parses, but HEAD (it comes with GET) and CONNECT (Node answers it itself). */
const METHODS = NODE_METHODS.filter((method) => method !== 'HEAD' && method !== 'CONNECT');

/** Lets Fastify route every method (it knows the common ones), so that each can be answered 405 on a known path. */
export function routeEveryMethod(app: FastifyInstance): void {
  for (const method of METHODS)
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
}

/**
 * Answers the methods a known path does not take with 405 and an `Allow` header naming those it does: OPTIONS and
 * TRACE included. OPTIONS is left to a CORS plugin registered in hooks.ts (one that answers `OPTIONS *`).
 */
export function refuseOtherMethods(
  app: FastifyInstance,
  url: string,
  allowed: readonly string[],
  /** the path's own onRequest hook: a deprecated resource's 405 announces it too (see http/deprecation.ts) */
  onRequest?: onRequestHookHandler,
): void {
  const preflight =
    app.hasRoute({ method: 'OPTIONS', url: '*' }) || app.hasRoute({ method: 'OPTIONS', url: '/*' });
  const others = METHODS.filter(
    (method) => !allowed.includes(method) && !(method === 'OPTIONS' && preflight),
  );
  if (others.length === 0) return;
  // HEAD comes with GET, or is a route of its own (named in `allowed`)
  const allow = [
    ...new Set(allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))),
  ].join(', ');
  app.route({
    method: others,
    url,
    ...(onRequest !== undefined && { onRequest }),
    handler: async (request) => {
      throw new HttpProblem(
        405,
        'Method Not Allowed',
        `${request.method} is not allowed here; use ${allow}`,
        undefined,
        {
          allow,
        },
      );
    },
  });
}

/**
 * The same for every other path, once all routes are registered: the server's own (/healthz, /openapi.json, /events,
 * /webhooks…) and the user's (src/routes.ts). Call it before any route is added; call the function it returns after
 * the last. Paths that differ only in the names of their parameters are one path; wildcard routes are left alone (a
 * CORS preflight's `OPTIONS *` would otherwise turn every unknown path into a 405).
 */
export function refuseOtherMethodsLater(app: FastifyInstance): () => void {
  const paths = new Map<string, { url: string; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    // Fastify takes /x and /x/ as one path (ignoreTrailingSlash)
    const shape = route.url.replace(/:[^/]+/g, ':').replace(/(.)\/$/, '$1');
    const path = paths.get(shape) ?? { url: route.url, methods: new Set<string>() };
    for (const method of [route.method].flat()) path.methods.add(method);
    paths.set(shape, path);
  });
  return () => {
    for (const { url, methods } of [...paths.values()]) {
      const allowed = METHODS.filter((method) => methods.has(method));
      if (allowed.length === 0 || allowed.length === METHODS.length) continue;
      try {
        // in alphabetical order, a HEAD route of its own included
        const named = [...METHODS, 'HEAD'].sort().filter((method) => methods.has(method));
        refuseOtherMethods(app, url, named);
      } catch (error) {
        // a path whose methods Fastify knows another way: it keeps its 404 rather than stop the server
        app.log.debug({ err: error, url }, 'no 405 for this path');
      }
    }
  };
}
