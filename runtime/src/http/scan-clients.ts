import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';

/**
 * Who a listing's statement that scans counts against (see db/scan-gate.ts): the rate limit's key, the verified
 * subject of the request's token or its address. A listing route notes its request on its query object, under a
 * symbol (a WeakMap entry per request cost a first page 8% more CPU, in the garbage collector's ephemeron work);
 * the key is made only for a statement that scans, from a token already verified (by the access guard or the rate
 * limit): one not verified yet counts against its address. One server per process: the last one installed keys.
 */
const REQUEST = Symbol('restsmith.request');
let keyOf: (request: FastifyRequest) => string = () => '';

export const scanClientOf = (query: object): string => {
  const request = (query as { [REQUEST]?: FastifyRequest })[REQUEST];
  return request === undefined ? '' : keyOf(request);
};

/** Notes the request of every listing route (a GET whose query takes a `limit`) registered from now on. */
export function noteScanClients(app: FastifyInstance, key: (request: FastifyRequest) => string): void {
  keyOf = key;
  const note: preHandlerHookHandler = (request, _reply, done) => {
    const query = request.query as { [REQUEST]?: FastifyRequest } | null;
    if (typeof query === 'object' && query !== null) query[REQUEST] = request;
    done();
  };
  app.addHook('onRoute', (route) => {
    const query = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    if (route.method !== 'GET' || query?.properties?.limit === undefined) return;
    route.preHandler = route.preHandler === undefined ? [note] : [route.preHandler, note].flat();
  });
}
