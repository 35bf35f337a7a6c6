import type { FastifyInstance } from 'fastify';

/**
 * What OpenTelemetry lends the rest of the server when traces are asked for: telemetry/otel.ts installs it, loaded by
 * telemetry/preload.ts before the server's modules. Otherwise nothing is installed, and nothing of OpenTelemetry is
 * loaded: this module imports none of it, and the code that asks for `tracing()` pays a call that answers undefined.
 */
export interface Tracing {
  /** Adds what the request spans need to a server just made (before its other hooks: see otel.ts). */
  instrument(app: FastifyInstance): void;
  /**
   * A span of one webhook send, the root of a trace of its own (the dispatcher sends for many requests at once, for
   * none in particular): the headers that carry its trace to the receiver (`traceparent`), and its end.
   */
  webhookSend(target: URL, messageId: string): SendSpan;
  /** Exports the spans ended so far, and stops (when the server closes). */
  flush(): Promise<void>;
}

export interface SendSpan {
  headers: Record<string, string>;
  /** the receiver's status, or why none came */
  end(status: number | null, error: string | null): void;
}

let installed: Tracing | undefined;

/** The tracing installed, if traces are exported. */
export const tracing = (): Tracing | undefined => installed;

export function installTracing(instance: Tracing): void {
  installed = instance;
}

const set = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

/**
 * Whether the environment asks for traces: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), or an exporter named in `OTEL_TRACES_EXPORTER` (`otlp`, `console`,
 * `zipkin`); not with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export function tracesWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (exporters[0] === 'none') return false;
  return (
    set(env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ||
    exporters.length > 0
  );
}

/**
 * The server's side of tracing, on a server just made: its request spans, and their export when it closes; or a
 * warning when the environment asks for traces but OpenTelemetry was not started (the server was started without the
 * preload, which `npm start` and the Dockerfile load).
 */
export function installTracingHooks(app: FastifyInstance): void {
  const active = tracing();
  if (active === undefined) {
    if (tracesWanted(process.env))
      app.log.warn(
        'traces are configured (OTEL_*) but OpenTelemetry is not started: start the server with `node --import ./dist/telemetry/preload.js dist/main.js`, as `npm start` does',
      );
    return;
  }
  active.instrument(app);
  app.addHook('onClose', async () => active.flush());
}
