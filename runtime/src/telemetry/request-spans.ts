import type { Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactQuery } from '../http/redact.js';
import { keepTraceId } from './trace-context.js';

/**
 * The spans of requests, which @fastify/otel makes (see otel.ts); what this server adds to them. Imported by otel.ts
 * only: never loaded unless traces are exported.
 */

/** The health probes: not traced (an orchestrator asks them every few seconds). */
const PROBES = /\/(?:healthz|livez|readyz)$/;
export const isProbe = (url: string): boolean => PROBES.test(url.split('?', 1)[0] ?? '');

const SETTLE = Symbol('restsmith.settleSpan');
interface Settling {
  [SETTLE]?: (statusCode: number) => void;
}

/**
 * @fastify/otel's requestHook, as a request's span starts: names it by the method and the route
 * (`GET /api/tags/:id`; the method alone for a path no route has); records the path, and the query with its secrets
 * redacted (see http/redact.ts), where @fastify/otel records the URL as sent; the request id, as the answer's
 * X-Request-Id says it; and keeps the trace id for the request's log lines (see trace-context.ts).
 */
export function describeRequest(span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
  const query = request.url.indexOf('?');
  span.setAttribute('url.path', query === -1 ? request.url : request.url.slice(0, query));
  if (query !== -1) span.setAttribute('url.query', redactQuery(request.url.slice(query)).slice(1));
  span.setAttribute('url.scheme', request.protocol);
  span.setAttribute('client.address', request.ip);
  span.setAttribute('http.response.header.x-request-id', [request.id]);
  keepTraceId(request.raw, span.spanContext().traceId);
  (request as Settling)[SETTLE] = holdErrors(span);
}

/**
 * A request answered 4xx is no error of the server's (the semantic conventions leave the status of such a SERVER span
 * unset), but @fastify/otel marks the span of any request whose handler or hook threw, as the 404s and 400s of this
 * server are made: the status and the exception it records are held until the answer's status is known, and kept
 * for a 5xx only.
 */
function holdErrors(span: Span): (statusCode: number) => void {
  const setStatus = span.setStatus.bind(span);
  const recordException = span.recordException.bind(span);
  let answered: number | undefined;
  let held: (() => void)[] = [];
  const hold = (record: () => void): void => {
    if (answered === undefined) held.push(record);
    else if (answered >= 500) record();
  };
  span.setStatus = (status) => {
    hold(() => setStatus(status));
    return span;
  };
  span.recordException = (exception, time) => hold(() => recordException(exception, time));
  return (statusCode) => {
    answered = statusCode;
    if (statusCode >= 500) for (const record of held) record();
    held = [];
  };
}

/**
 * The hook the request spans need, on a server just made (installTracingHooks in tracing.ts). (The statements of a
 * request are its span's children without more: Fastify runs what follows the reading of a body in the request's
 * async context again, however late the body came.)
 */
export function instrumentRequests(app: FastifyInstance): void {
  // before @fastify/otel's own onSend, which ends the span: the status of the answer is known
  app.addHook('onSend', (request, reply, payload, done) => {
    (request as Settling)[SETTLE]?.(reply.statusCode);
    done(null, payload);
  });
}
