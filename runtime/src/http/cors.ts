import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** The definition's `cors` (see settings.ts). */
export interface CorsSettings {
  /** exact origins (`https://app.example.com`), or `*` for any */
  origins: '*' | readonly string[];
  /** whether browsers may send cookies and HTTP authentication along (never with `*`) */
  credentials: boolean;
  /** how long a browser may reuse a preflight answer */
  maxAgeSeconds: number;
}

/** Every method the API answers. */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Every request header the API reads that a page must be allowed to send. */
export const CORS_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
];
/** Every response header a page may need to read: versions, new records, when to retry, rate limits, deprecation. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Deprecation',
  'Sunset',
  'Link',
];

/**
 * CORS by @fastify/cors: a preflight (`OPTIONS` on any path) from an allowed origin gets 204 with every method and
 * request header the API uses; every answer to an allowed origin — errors, 304s and 429s included, the hook runs
 * first — says so and exposes the headers above; other origins get no CORS header at all (their browsers then refuse
 * to hand the answer to the page), and their preflights a 404. Registered before the routes: the 405 handler of each path leaves OPTIONS to it.
 */
export async function installCors(app: FastifyInstance, settings: CorsSettings | null): Promise<void> {
  if (settings === null) return;
  const { origins } = settings;
  const allowed = new Set(origins);
  await app.register(cors, {
    // another origin (or none) gets no CORS header at all, and its preflight no answer (404)
    origin: origins === '*' ? '*' : (origin, done) => done(null, origin !== undefined && allowed.has(origin)),
    methods: CORS_METHODS,
    allowedHeaders: CORS_REQUEST_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: settings.credentials,
    maxAge: settings.maxAgeSeconds,
    // an OPTIONS that is no preflight of an allowed origin (no Origin, another origin) is a 404 problem, like any
    // path and method the API does not serve, never the plugin's plain-text 400
    strictPreflight: false,
  });
}
