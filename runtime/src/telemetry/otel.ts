import { readFileSync } from 'node:fs';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { describeRequest, instrumentRequests, isProbe } from './request-spans.js';
import { installTracing, type SendSpan } from './tracing.js';

/**
 * OpenTelemetry, started by telemetry/preload.ts when the environment asks for traces; never imported otherwise.
 * The SDK reads the standard environment: `OTEL_EXPORTER_OTLP_ENDPOINT` (or `_TRACES_ENDPOINT`), `_PROTOCOL`
 * (`http/protobuf` by default, `http/json`, `grpc`), `_HEADERS`, `OTEL_SERVICE_NAME` (else the package's name),
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` (parent-based, every trace by default), `OTEL_PROPAGATORS` (W3C
 * `traceparent` and baggage by default: an incoming trace is continued).
 *
 * What is traced:
 * - each request (@fastify/otel): a SERVER span named by its method and route, with its status (see
 *   request-spans.ts); not the health probes;
 * - each PostgreSQL statement a request runs, a child of its span (@opentelemetry/instrumentation-pg: the SQL text,
 *   never its values). Statements no request runs (the webhook dispatcher's, the event streams' polls, the retention)
 *   are not, nor SQLite's: better-sqlite3 runs a statement in microseconds, on this thread, and a span would cost
 *   more than most of them;
 * - each webhook send, the root of a trace of its own (see webhookSend);
 * - `fetch` calls a request makes (a JWKS, your handlers' calls to other services), through
 *   @opentelemetry/instrumentation-undici.
 * Traces only: metrics are Prometheus's (METRICS_PORT), logs are the JSON lines on stdout.
 */
export function startTracing(): void {
  const name = serviceName();
  const sdk = new NodeSDK({
    ...(name !== undefined && { serviceName: name }),
    instrumentations: [
      new FastifyOtelInstrumentation({
        // on every Fastify instance as it is made, before any of its hooks and routes
        registerOnInitialization: true,
        // a span for the request, none per hook and handler: the statements are its children (see request-spans.ts)
        instrumentHooks: false,
        instrumentHandler: false,
        ignorePaths: ({ url }) => isProbe(url),
        requestHook: describeRequest,
      }),
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  const tracer = trace.getTracer('restsmith');
  installTracing({
    instrument: instrumentRequests,
    webhookSend(target: URL, messageId: string): SendSpan {
      const https = target.protocol === 'https:';
      // the URL's path and query are not recorded: a receiver's URL often holds its own secret
      const span = tracer.startSpan(
        'webhook send',
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': 'POST',
            'url.scheme': https ? 'https' : 'http',
            'server.address': target.hostname.replace(/^\[|\]$/g, ''),
            'server.port': Number(target.port) || (https ? 443 : 80),
            'webhook.message_id': messageId,
          },
        },
        ROOT_CONTEXT,
      );
      const headers: Record<string, string> = {};
      propagation.inject(trace.setSpan(ROOT_CONTEXT, span), headers);
      return {
        headers,
        end(status, error) {
          if (status !== null) span.setAttribute('http.response.status_code', status);
          if (status === null || status >= 400)
            span.setStatus({
              code: SpanStatusCode.ERROR,
              message: error ?? `the receiver answered ${status}`,
            });
          span.end();
        },
      };
    },
    flush: () => sdk.shutdown(),
  });
}

/**
 * The service's name when the environment gives none (`OTEL_SERVICE_NAME`, or `service.name` in
 * `OTEL_RESOURCE_ATTRIBUTES`): the project's, from its package.json (beside dist/).
 */
function serviceName(): string | undefined {
  const env = process.env;
  if (env.OTEL_SERVICE_NAME?.trim() || /(?:^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? ''))
    return undefined;
  try {
    const { name } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      name?: unknown;
    };
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}
