import {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { destination, type Bindings, type ChildLoggerOptions, type LogFn } from 'pino';

/**
 * The server's logger: pino at `level`, written to standard output asynchronously (lines written while one is being
 * written go out together; whatever is buffered is flushed when the process exits, but not if it is killed with
 * SIGKILL). Writing each line synchronously costs a system call per line.
 */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return { level, stream: destination({ dest: 1, sync: false }) };
}

/**
 * Request logging: one line per request, at `info`, when it is answered — method, url, client address, status and
 * response time (ms), with the request id every other line of that request carries. Fastify's own writes two lines
 * (on arrival and on answer), and each costs about as much CPU as Fastify's whole routing of a small request.
 * `LOG_LEVEL=warn` turns request lines off.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) super.requestCompleted(error, request, reply);
    else {
      const line = { req: request, res: reply, responseTime: reply.elapsedTime };
      if (reply.log instanceof RequestLogger) reply.log.infoOnce(line, 'request completed');
      else reply.log.info(line, 'request completed');
    }
  }
}

type Log = (...args: Parameters<LogFn>) => void;

/**
 * The logger of one request (`request.log`): the server's with the request id bound, made only when something is
 * logged through it at a level that is on. Pino makes a child logger per request otherwise, used by most requests
 * for nothing.
 */
export class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  #made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings);
    return this.#child;
  }

  /** a line at `info` on a logger that is otherwise not used: the bindings are written with it, no child is made */
  infoOnce(object: object, message: string): void {
    if (this.#child !== undefined) this.#child.info(object, message);
    else if (isOn(this.parent, 'info')) this.parent.info({ ...this.bindings, ...object }, message);
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
) =>
  options.level === undefined && options.serializers === undefined
    ? new RequestLogger(logger, bindings)
    : logger.child(bindings, options);
