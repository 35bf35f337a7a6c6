import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';

/**
 * Who a listing's statement that scans counts against (see db/scan-gate.ts): the rate limit's key, the verified
 * subject of the request's token or its address. A listing route notes its request under its query object (a
 * WeakMap entry, gone with the request); the key is made only for a statement that scans, from a token already
 * verified (by the access guard or the rate limit): one not verified yet counts against its address.
 */
const requests = new WeakMap<object, FastifyRequest>();
let keyOf: (request: FastifyRequest) => string = () => '';

export const scanClientOf = (query: object): string => {
  const request = requests.get(query);
  return request === undefined ? '' : keyOf(request);
};

/** Notes the request of every listing route (a GET whose query takes a `limit`) registered from now on. */
export function noteScanClients(app: FastifyInstance, key: (request: FastifyRequest) => string): void {
  keyOf = key;
  const note: preHandlerHookHandler = (request, _reply, done) => {
    if (typeof request.query === 'object' && request.query !== null) requests.set(request.query, request);
    done();
  };
  app.addHook('onRoute', (route) => {
    const query = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    if (route.method !== 'GET' || query?.properties?.limit === undefined) return;
    route.preHandler = route.preHandler === undefined ? [note] : [route.preHandler, note].flat();
  });
}
