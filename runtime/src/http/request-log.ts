import {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';
import { traceIdOf } from '../telemetry/trace-context.js';

/**
 * Request logging: one line per request, at `info`, when it is answered, of plain values —
 * `{"reqId":"req-1","method":"GET","url":"/posts?limit=2","ip":"127.0.0.1","statusCode":200,"responseTime":0.9,
 * "msg":"request completed"}` — with the request id every other line of that request carries, and its `traceId`
 * when it has one (see telemetry/trace-context.ts). Its `url` is written through the logger's `url` serializer, which
 * redacts secrets of the query string (see redact.ts). Fastify's own writes
 * two lines (on arrival and on answer) of serialised request and reply objects: each costs about as much CPU as
 * Fastify's routing of a small request. `LOG_LEVEL=warn` turns request lines off; at `debug`, each request also
 * writes a line when it arrives.
 */
export class RequestLog extends LogController {
  /** at `debug`, a line when a request arrives too (to find requests that never finish) */
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) return super.requestCompleted(error, request, reply);
    // through the request logger's parent with the id written out: no child logger is made for this line (see
    // RequestLogger); a route's own level or serializers apply through its child
    const log = reply.log instanceof RequestLogger ? reply.log.parent : reply.log;
    if (!isOn(log, 'info')) return;
    log.info(
      {
        [this.requestIdLogLabel]: request.id,
        // pino leaves out a key whose value is undefined: one shape of object for every line
        traceId: traceIdOf(request.raw),
        method: request.method,
        url: request.url,
        ip: request.ip,
        statusCode: reply.statusCode,
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  }
}

type Log = (...args: Parameters<LogFn>) => void;

/**
 * The logger of one request (`request.log`): the server's with the request id bound (and the trace id, when the
 * request has one), made only when something is logged through it at a level that is on. Pino makes a child logger
 * per request otherwise, used by most requests for nothing.
 */
export class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;
  #traced = false;

  constructor(
    /** the logger a line is written through, the request id bound (the route's: the server's, or a plugin's) */
    readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    /** the request, whose trace id is bound too */
    private readonly raw?: IncomingMessage,
  ) {}

  /**
   * The child logger, made at its first line; made again, once, if the request's trace is known only later (with
   * OpenTelemetry, a request that came without `traceparent` has one once its span is started, after the line a
   * request writes at `debug` as it arrives).
   */
  #made(): FastifyBaseLogger {
    if (this.#child !== undefined && this.#traced) return this.#child;
    const traceId = this.raw === undefined ? undefined : traceIdOf(this.raw);
    if (this.#child === undefined || traceId !== undefined) {
      this.#traced = traceId !== undefined;
      this.#child = this.parent.child(traceId === undefined ? this.bindings : { ...this.bindings, traceId });
    }
    return this.#child;
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }
  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: Parameters<LogFn>): void {
    this.#log('fatal', args);
  }
  error(...args: Parameters<LogFn>): void {
    this.#log('error', args);
  }
  warn(...args: Parameters<LogFn>): void {
    this.#log('warn', args);
  }
  info(...args: Parameters<LogFn>): void {
    this.#log('info', args);
  }
  debug(...args: Parameters<LogFn>): void {
    this.#log('debug', args);
  }
  trace(...args: Parameters<LogFn>): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #log(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: Parameters<LogFn>): void {
    if (this.#child === undefined && !isOn(this.parent, level)) return;
    (this.#made()[level] as Log)(...args);
  }
}

/** whether `logger` writes lines at `level` (a logger that cannot say is taken to) */
function isOn(logger: FastifyBaseLogger, level: string): boolean {
  const { isLevelEnabled } = logger as { isLevelEnabled?: (level: string) => boolean };
  return isLevelEnabled === undefined || isLevelEnabled.call(logger, level);
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger, or pino's own child when a route sets its own level or
 * serializers (those must apply from the first line).
 */
export const requestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
  raw,
) => {
  if (options.level === undefined && options.serializers === undefined)
    return new RequestLogger(logger, bindings, raw);
  const traceId = traceIdOf(raw);
  return logger.child(traceId === undefined ? bindings : { ...bindings, traceId }, options);
};
