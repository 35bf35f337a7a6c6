import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { ConstraintError, DatabaseUnavailableError, ScanRefusedError } from '../db/database.js';
import {
  badRequest,
  conflict,
  HttpProblem,
  notFound,
  problem,
  requestOrigin,
  serviceUnavailable,
  type FieldError,
} from './problem.js';
import { PROBLEM_KINDS, type ProblemKind } from './problem-kinds.js';
import { v7 as uuidv7 } from 'uuid';
import { ACCEPTED_BODIES } from './content-types.js';
import { validationErrors } from './validation.js';
import { BODY_LIMIT } from '../settings.js';

/** A ref field a body may send: the collection it refers to, and one of its records in words (`a`, `reading list`). */
export interface Reference {
  to: string;
  article: 'a' | 'an';
  noun: string;
}

/** A unique key of a resource, as a violation of it is answered (see RouteProblemConfig.uniqueKeys). */
export interface UniqueKey {
  index: string;
  columns: readonly string[];
  fields: readonly string[];
  message: string;
}

/** Route settings read by the error handler; set per route in `config`. */
export interface RouteProblemConfig {
  /** fields that a client may not write; a body that sends one gets a 400 that says so */
  readOnly?: readonly string[];
  /** computed fields, which no body may send either: the 400 says they are computed */
  computed?: readonly string[];
  /** what a unique or foreign-key violation on this route means, in the API's own words */
  constraintMessages?: { unique?: string; foreignKey?: string };
  /**
   * the resource's unique keys: the index of each (its name, and its columns), the fields it holds and its 409's
   * words, so that the 409 of a violation names the fields whose values are taken
   */
  uniqueKeys?: readonly UniqueKey[];
  /** what a path naming no record (or an id that cannot be one) answers: `no book has this id` */
  notFound?: string;
  /** the same, per path parameter, where a path names two records (a link: `/books/:id/tags/:tagId`) */
  notFoundOf?: Readonly<Record<string, string>>;
  /** the ref fields a body of this route may send: the collection each refers to, its records in words */
  references?: Readonly<Record<string, Reference>>;
  /**
   * a create's check of its owner fields (the resource's `owned`, see auth/owner.ts): a body the schema refuses is
   * also told which owner fields it must send, so that one 400 names every problem
   */
  owned?: (input: never, scope: never) => unknown;
}

declare module 'fastify' {
  // every route's `config` may carry them (an empty interface that only extends: it adds the properties)
  interface FastifyContextConfig extends RouteProblemConfig {}
}

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
};

/** Turns every error into a problem document; a 500 never carries a stack, SQL or a path. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    send(reply, notFound(`no route for ${request.method} ${request.url.split('?')[0]}`));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') keepReadingTooLargeBody(request, reply);
    send(reply, toProblem(error, request));
  });
}

/** The declared body length up to which a 413 keeps the connection open (see keepReadingTooLargeBody). */
export const LINGER_LIMIT = 16 * BODY_LIMIT;
/** How long the rest of such a body may take to arrive before the connection is closed after all. */
export const LINGER_MS = 10_000;

/**
 * Fastify answers a body whose Content-Length is over the limit at once and closes the connection. A client still
 * sending that body (a browser uploading a file, Node's fetch) then meets a reset, not the 413: the closing socket
 * has unread data, so the kernel answers the rest with RST, and the client fails on its next write before it reads
 * the answer (on loopback a few times in a hundred, over a network nearly always). Up to LINGER_LIMIT the
 * connection stays open instead, as nginx's lingering close does: Node reads the rest of the body and throws it
 * away, and the client reads its 413; a rest that takes longer than LINGER_MS closes the connection after all.
 * Longer declared bodies are cut off at once.
 */
function keepReadingTooLargeBody(request: FastifyRequest, reply: FastifyReply): void {
  const declared = Number(request.headers['content-length']);
  if (!Number.isSafeInteger(declared) || declared > LINGER_LIMIT) return;
  reply.removeHeader('connection');
  const raw = request.raw;
  const timer = setTimeout(() => raw.socket.destroy(), LINGER_MS);
  timer.unref();
  raw.once('close', () => clearTimeout(timer));
}

/** Errors Fastify meets before routing (a URL it cannot decode): a 400 problem like any other. */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (
  error,
  request,
  reply,
) => {
  // answered before any hook runs: its id is said here (see request-id.ts)
  reply.header('x-request-id', request.id);
  // a path segment longer than any id (or name) of a route cannot name a record: an unknown one
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return send(reply, notFound('no record has this id'));
  send(reply, problem('malformed', 'the request URL is not valid'));
};

const CLIENT_ERRORS: Record<string, ProblemKind> = {
  HPE_HEADER_OVERFLOW: 'headers-too-large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request-timeout',
};

/** Requests Node's HTTP parser refuses (bytes no URL may hold, broken headers): a problem document, then close. */
export const clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']> = (
  error,
  socket,
) => {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const kind = CLIENT_ERRORS[error.code ?? ''] ?? 'malformed';
  const { status, title } = PROBLEM_KINDS[kind];
  // no request was read, so none has an id: this answer gets one of its own
  const id = uuidv7();
  const body = JSON.stringify(problem(kind, 'the request is not well-formed HTTP').toDocument(id));
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
  );
};

/** The owner fields a refused create's body lacks, as its route's `owned` finds them (none when it cannot tell). */
function ownerErrors(owned: RouteProblemConfig['owned'], request: FastifyRequest): FieldError[] {
  const body = request.body;
  if (owned === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  try {
    owned(body as never, request.scope as never);
    return [];
  } catch (error) {
    return error instanceof HttpProblem && error.status === 400 ? (error.errors ?? []) : [];
  }
}

/** A listing that scans a table, refused by the caps of db/scan-gate.ts: when to try again is in Retry-After. */
function scanRefused({ reason, retryAfter }: ScanRefusedError): HttpProblem {
  const headers = { 'retry-after': String(retryAfter) };
  if (reason === 'client')
    return problem(
      'rate-limited',
      'this client already has as many listings that read a whole table under way as it may: try again when one has answered',
      undefined,
      headers,
    );
  const detail =
    reason === 'busy'
      ? 'the server is running as many listings that read a whole table as it can, and as many wait: try again shortly'
      : 'this listing reads a whole table and did not finish within DATABASE_STATEMENT_TIMEOUT: try again later, or filter or sort by indexed fields';
  return problem('unavailable', detail, undefined, headers);
}

function toProblem(error: FastifyError, request: FastifyRequest): HttpProblem {
  if (error instanceof HttpProblem) return error;
  const config = request.routeOptions.config;
  if (error.validation !== undefined) {
    // an id that cannot exist is an unknown resource, not a bad request
    if (error.validationContext === 'params') {
      const param = error.validation[0]?.instancePath.slice(1) || 'id';
      return notFound(config.notFoundOf?.[param] ?? config.notFound ?? `no record has this ${param}`);
    }
    const errors: FieldError[] = validationErrors(
      error.validation,
      error.validationContext,
      config.readOnly ?? [],
      config.computed ?? [],
      error.validationContext === 'body' ? request.body : undefined,
    );
    const owners = error.validationContext === 'body' ? ownerErrors(config.owned, request) : [];
    const more = owners.filter((o) => !errors.some((e) => e.path === o.path));
    const what =
      error.validationContext === 'headers' ? 'a header' : `the ${error.validationContext ?? 'request'}`;
    return badRequest(`${what} is not valid`, [...errors, ...more]);
  }
  if (error instanceof ScanRefusedError) return scanRefused(error);
  if (error instanceof DatabaseUnavailableError) {
    request.log.warn({ err: error }, 'the database cannot answer');
    return serviceUnavailable('the database cannot answer now: try again shortly');
  }
  if (error instanceof ConstraintError) {
    const messages = config.constraintMessages;
    if (error.kind === 'unique') return taken(config.uniqueKeys, error, messages?.unique);
    if (error.kind === 'foreignKey') return missingReference(request, messages?.foreignKey);
    if (error.kind === 'value')
      return badRequest('the request holds a value the database cannot store (such as the NUL character)');
    if (error.kind === 'depth') {
      return problem(
        'conflict-reference',
        'this delete would reach records 1,000 or more refs deep, each referring to the next, which SQLite does not follow: delete the furthest of them first',
      );
    }
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = request.routeOptions.bodyLimit;
    return problem('payload-too-large', `the body is over the ${limit} bytes this server takes`);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return problem('unsupported-media-type', ACCEPTED_BODIES);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new HttpProblem(status, STATUS_TITLES[status] ?? 'Client Error', error.message);
  }
  request.log.error({ err: error }, 'request failed');
  return problem('internal', 'the server failed to answer this request; it has been logged');
}

/**
 * The 409 of a unique violation: the key the database names (by its index, else by its columns) gives the fields
 * whose values are taken; else the route's words for any of its keys.
 */
function taken(
  keys: readonly UniqueKey[] = [],
  error: ConstraintError,
  message: string | undefined,
): HttpProblem {
  const same = (columns: readonly string[]): boolean =>
    columns.length === error.columns.length && columns.every((column, i) => column === error.columns[i]);
  // PostgreSQL names an index by its first 63 bytes (its names here are ASCII)
  const named = (index: string): boolean =>
    index === error.index || (error.index?.length === 63 && index.startsWith(error.index));
  const key = keys.find((k) => (error.index !== undefined ? named(k.index) : same(k.columns)));
  if (key === undefined)
    return conflict(message ?? 'a record with these values already exists', 'conflict-unique');
  const says = key.fields.length === 1 ? 'this value' : `the same ${key.fields.join(' and ')}`;
  return problem(
    'conflict-unique',
    key.message,
    key.fields.map((field) => ({ path: `/${field}`, message: `is taken: another record has ${says}` })),
  );
}

/** The 409's words for a foreign key that failed, where the route has none of its own (see constraintMessages). */
export const MISSING_REFERENCE = 'a referenced record does not exist';

/**
 * A 409 for a reference to a record that does not exist, met by a write that did not go through References (which
 * names the very fields): the ref fields the body sent, the one of them if there is only one.
 */
function missingReference(request: FastifyRequest, message: string | undefined): HttpProblem {
  const references = request.routeOptions.config.references ?? {};
  const body =
    typeof request.body === 'object' && request.body !== null
      ? (request.body as Record<string, unknown>)
      : {};
  const sent = Object.keys(references).filter((field) => body[field] !== undefined && body[field] !== null);
  const [only] = sent;
  const reference = only === undefined ? undefined : references[only];
  if (sent.length !== 1 || only === undefined || reference === undefined) {
    return conflict(message ?? MISSING_REFERENCE, 'conflict-reference');
  }
  return problem(
    'conflict-reference',
    `no ${reference.noun} has the id sent as ${only} (${JSON.stringify(body[only])})`,
    [{ path: `/${only}`, message: `must be the id of an existing ${reference.noun}` }],
  );
}

function send(reply: FastifyReply, answer: HttpProblem): void {
  void reply
    .code(answer.status)
    .headers(answer.headers)
    .type('application/problem+json')
    .send(answer.toDocument(reply.request.id, requestOrigin(reply.request)));
}
