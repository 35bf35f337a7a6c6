import type { FastifyServerOptions } from 'fastify';
import { stdSerializers, type LoggerOptions, type LogFn } from 'pino';

/**
 * What the logs never hold: a token, a cookie or a secret, at any level. Headers are redacted by pino's `redact`
 * (paths compiled once, applied to what a line logs); a URL's query string by the `url` and `req` serializers; text
 * (a message, an error's message and stack) by the logMethod hook and the `err` serializer. The request lines
 * (http/request-log.ts) log a request's method, URL and status, never its headers or body.
 */

/** What a redacted value is logged as. */
export const REDACTED = '[REDACTED]';

/** The headers whose values are never logged, wherever a line holds a request's or an answer's headers. */
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];
/** Where a line holds headers: logged as they are, or as pino's and Fastify's serializers write requests. */
const HEADER_HOLDERS = [
  'headers',
  'req.headers',
  'request.headers',
  'res.headers',
  'reply.headers',
  'response.headers',
];
export const REDACT_PATHS = HEADER_HOLDERS.flatMap((holder) =>
  SECRET_HEADERS.map((name) => `${holder}["${name}"]`),
);

/**
 * A query parameter whose value is a secret: its name, lower-cased and cut into words at anything but a letter or a
 * digit, has a word that ends with one of these (`token`, `access_token`, `api_key`, `apiKey`, `client_secret`,
 * `password`, `filter[key]`, `X-Amz-Signature`, `sessionid`). A few names that only look so (`monkey`) are redacted
 * too: a log line loses a value, never keeps a secret.
 */
const SECRET_WORD =
  /(?:token|key|secret|password|passwd|pass|passphrase|pwd|signature|sig|auth|authorization|credentials?|jwt|session|sessionid|cookie)s?$/;

export function isSecretName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // a malformed escape: the name as it was sent
  }
  return decoded
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((word) => SECRET_WORD.test(word));
}

/** `name=value` after `?` or `&`, up to what ends a query value in a URL or in text around one. */
const PAIR = /([?&])([^=&#\s"'`<>]+)=([^&#\s"'`<>]*)/g;

/**
 * `text` with the value of every query parameter named like a secret replaced: `/posts?access_token=abc&limit=2` is
 * `/posts?access_token=[REDACTED]&limit=2`. A URL, or any text that holds one (a message, an error's stack).
 */
export function redactQuery(text: string): string {
  if (!text.includes('=')) return text;
  return text.replace(PAIR, (pair: string, start: string, name: string, value: string) =>
    value !== '' && value !== REDACTED && isSecretName(name) ? `${start}${name}=${REDACTED}` : pair,
  );
}

/** The most of a URL a line holds: a client may send one of up to the 16 KiB of request headers Node admits. */
export const MAX_LOGGED_URL = 1024;

/** A URL as a line holds it: its query redacted, then cut at MAX_LOGGED_URL characters, saying how many it had. */
export function loggedUrl(value: string): string {
  const redacted = redactQuery(value);
  if (redacted.length <= MAX_LOGGED_URL) return redacted;
  return `${redacted.slice(0, MAX_LOGGED_URL)}… (${redacted.length} characters)`;
}

/** The `url` of a log line (the request lines' `url`): a string as loggedUrl makes it, anything else as it is. */
const url = (value: unknown): unknown => (typeof value === 'string' ? loggedUrl(value) : value);

/** Fastify's own `req` serializer (its fields), the URL redacted. */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}
const req = (request: LoggedRequest) => ({
  method: request.method,
  url: request.url === undefined ? undefined : loggedUrl(request.url),
  version: request.headers?.['accept-version'] as string | undefined,
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});

/** pino's error serializer, with a URL's secrets redacted from the message and the stack. */
const err = (error: Error) => {
  const serialized = stdSerializers.err(error);
  if (typeof serialized.message === 'string') serialized.message = redactQuery(serialized.message);
  if (typeof serialized.stack === 'string') serialized.stack = redactQuery(serialized.stack);
  return serialized;
};

/**
 * Text a line is written with (its message, printf arguments) with the query secrets of any URL in it redacted:
 * Fastify's own warnings name a request's URL in their message. A lone error is written with its message redacted
 * (pino would take the message as it is).
 */
function logMethod(this: unknown, args: Parameters<LogFn>, method: LogFn): void {
  const values = args as unknown[];
  const [first] = values;
  if (values.length === 1 && first instanceof Error && first.message.includes('=')) {
    return method.call(this, first, redactQuery(first.message));
  }
  // pino passes the arguments in an array of this call's own
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i];
    if (typeof value === 'string') values[i] = redactQuery(value);
  }
  method.apply(this, args);
}

type LoggerSetting = FastifyServerOptions['logger'];

/**
 * The server's logger options with the redaction added (`true` is pino's defaults with it); `false` and undefined
 * (no logger) stay as they are. Serializers and redact paths given are kept: the redaction's are added to them.
 */
export function withRedaction(logger: LoggerSetting): LoggerSetting {
  if (logger === false || logger === undefined) return logger;
  const given: LoggerOptions = logger === true ? {} : (logger as LoggerOptions);
  const paths = Array.isArray(given.redact) ? given.redact : (given.redact?.paths ?? []);
  const censor = Array.isArray(given.redact) ? REDACTED : (given.redact?.censor ?? REDACTED);
  return {
    ...given,
    redact: { paths: [...REDACT_PATHS, ...paths], censor },
    serializers: { url, req, err, ...given.serializers },
    hooks: { logMethod, ...given.hooks },
  } as LoggerSetting;
}
