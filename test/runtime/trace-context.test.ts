import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { RequestLog, requestLogger } from '../../runtime/src/http/request-log.js';
import { keepTraceId, traceIdOfHeader } from '../../runtime/src/telemetry/trace-context.js';
import { tracesWanted } from '../../runtime/src/telemetry/tracing.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('the trace id of a traceparent', () => {
  it.each([
    [`00-${TRACE}-${PARENT}-01`, TRACE],
    [`00-${TRACE}-${PARENT}-00`, TRACE],
    // a later version may add fields
    [`01-${TRACE}-${PARENT}-01-what-comes-next`, TRACE],
    [`00-${TRACE}-${PARENT}-01-more`, undefined],
    [`ff-${TRACE}-${PARENT}-01`, undefined],
    [`00-${'0'.repeat(32)}-${PARENT}-01`, undefined],
    [`00-${TRACE}-${'0'.repeat(16)}-01`, undefined],
    [`00-${TRACE.toUpperCase()}-${PARENT}-01`, undefined],
    [`00-${TRACE.slice(1)}-${PARENT}-01`, undefined],
    [`00_${TRACE}_${PARENT}_01`, undefined],
    ['', undefined],
    [undefined, undefined],
    [[`00-${TRACE}-${PARENT}-01`], undefined],
  ])('%j: %j', (header, traceId) => {
    expect(traceIdOfHeader(header)).toBe(traceId);
  });
});

describe('whether the environment asks for traces', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, false],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_SERVICE_NAME: 'api' }, false],
  ])('%j: %s', (env, wanted) => {
    expect(tracesWanted(env)).toBe(wanted);
  });
});

describe('the log lines of a request', () => {
  async function server(level: string) {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const app = Fastify({
      logger: { level, stream },
      logController: new RequestLog(),
      childLoggerFactory: requestLogger,
    });
    app.get('/ok', async (request) => {
      request.log.info('inside');
      return { ok: true };
    });
    // as OpenTelemetry does once a request's span starts (telemetry/request-spans.ts), after the arrival line
    app.get('/started', async (request) => {
      keepTraceId(request.raw, TRACE);
      request.log.info('inside');
      return { ok: true };
    });
    await app.ready();
    return { app, lines };
  }

  it('carry the trace id of a valid traceparent, at every level', async () => {
    const { app, lines } = await server('debug');
    await app.inject({ url: '/ok', headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
    expect(lines.map((line) => [line.msg, line.traceId])).toEqual([
      ['incoming request', TRACE],
      ['inside', TRACE],
      ['request completed', TRACE],
    ]);
    await app.close();
  });

  it('carry none without one, or with one that is not valid', async () => {
    const { app, lines } = await server('info');
    await app.inject({ url: '/ok' });
    await app.inject({ url: '/ok', headers: { traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` } });
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).not.toHaveProperty('traceId');
    await app.close();
  });

  it('carry the trace started for the request from then on', async () => {
    const { app, lines } = await server('debug');
    await app.inject({ url: '/started' });
    expect(lines.map((line) => [line.msg, line.traceId])).toEqual([
      ['incoming request', undefined],
      ['inside', TRACE],
      ['request completed', TRACE],
    ]);
    await app.close();
  });
});
