import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import document from '../openapi.json' with { type: 'json' };
import { ConfigError } from '../config.js';
import { RATE_LIMIT_WINDOW_MS } from '../settings.js';

/** DOCS: `false` turns /docs and /openapi.json off (404); unset or `true`, they are served. */
export function readDocs(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(`DOCS must be true or false, not "${value}"`);
}

/** A Host header (name or address, optional port) worth naming in the document; anything else is left out. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

/** The scheme and host a request was sent to, when both are well-formed (the Host of a client is not trusted further). */
export function originOf(protocol: string, host: string): string | undefined {
  const match = HOST.exec(host);
  const port = match?.[1] === undefined ? 80 : Number(match[1]);
  if (match === null || port < 1 || port > 65535 || (protocol !== 'http' && protocol !== 'https'))
    return undefined;
  return `${protocol}://${host}`;
}

/** How many requests of the docs page's assets a client may make for each request of the API it may make. */
export const ASSETS_PER_REQUEST = 10;

/**
 * The docs page's assets (@fastify/swagger-ui's scripts, styles and icons under /docs/static/: seven a load of the
 * page) are counted apart from the API, each of its three routes with ten times the API's limit: opening the page does
 * not use up a small limit, and the server's largest answer (a 1.7 MB script) is not unbounded for a client either.
 * The page (/docs) and the document it reads (/docs/json) count as API requests. No other route is touched, and one
 * that says its own `rateLimit` keeps it. Added before the rate limit (http/rate-limit.ts), which reads a route's
 * `config.rateLimit` as the route is added; `max` 0: no limit at all.
 */
export function countDocsAssetsApart(app: FastifyInstance, prefix: string, max: number): void {
  if (max === 0) return;
  const assets = new Set(
    ['*', 'index.html', 'swagger-initializer.js'].map((name) => `${prefix}/docs/static/${name}`),
  );
  app.addHook('onRoute', (route) => {
    const own = route.config?.rateLimit;
    if (!assets.has(route.url) || (own !== undefined && own !== null)) return;
    const rateLimit = { max: max * ASSETS_PER_REQUEST, timeWindow: RATE_LIMIT_WINDOW_MS };
    route.config = { ...route.config, rateLimit };
  });
}

/**
 * The OpenAPI 3.1 document of this API (src/openapi.json, written by restsmith from the definition) at
 * /openapi.json, and an interactive page for it at /docs, its assets served by this server (no CDN). `prefix` is the
 * path prefix `app` is registered under: the page's links to its assets carry it, with or without a trailing slash.
 *
 * src/openapi.json names a templated server (`{origin}` + prefix). As served at /openapi.json, for client
 * generators, the document names the server it is served from: the scheme and host of the request (from
 * X-Forwarded-Proto / X-Forwarded-Host when TRUST_PROXY admits the proxy). The docs page reads it with the prefix
 * alone, which the browser resolves against the page: it calls this server however it was reached.
 */
export async function installDocs(
  app: FastifyInstance,
  prefix = '',
  extend: (generated: typeof document) => typeof document = (generated) => generated,
): Promise<void> {
  const relative = prefix === '' ? '/' : prefix;
  // the generated document and the routes registered after it (see http/custom-routes.ts): complete once the app is
  // ready, which is before any request
  let complete: typeof document | undefined;
  const withServer = (url: string) => ({
    ...(complete ??= extend(document)),
    servers: [{ url, description: 'This server' }],
  });
  const served = (request: FastifyRequest, reply: FastifyReply) => {
    // it names the request's host: a shared cache must not hand one client's copy to another
    const vary = reply.getHeader('vary');
    reply
      .header('cache-control', 'private, no-cache')
      .header('vary', [vary, 'Host, X-Forwarded-Host, X-Forwarded-Proto'].filter(Boolean).join(', '));
    const origin = originOf(request.protocol, request.host);
    return withServer(origin === undefined ? relative : `${origin}${prefix}`);
  };
  // the JSON module's literal types are narrower than the plugin's OpenAPI types, and it is the same document
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    ...(prefix !== '' && { indexPrefix: prefix }),
    transformSpecificationClone: false,
    transformSpecification: () => withServer(relative),
  });
  app.get('/openapi.json', async (request, reply) =>
    reply.type('application/json').send(served(request, reply)),
  );
}
