import { kindOfStatus, PROBLEM_KINDS, type ProblemKind } from './problem-kinds.js';
import { PROBLEMS_BASE } from '../settings.js';

export { PROBLEM_KINDS, type ProblemKind } from './problem-kinds.js';

/** RFC 9457 problem documents: every error this server answers is one of these. */
export interface FieldError {
  /** JSON Pointer to the offending member of the body or query, e.g. `/title` */
  path: string;
  message: string;
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** `urn:request:<id>`: the request's id, as its X-Request-Id header and its log lines carry it */
  instance?: string;
  errors?: FieldError[];
}

/**
 * The `type` of a kind's documents: `<origin><prefix>/problems/<kind>`, the page this server serves for it, with the
 * origin the request was sent to (see `requestOrigin`); `<problems.base>/<kind>` when the definition gives a base.
 * Without an origin (a request Node could not parse, a Host that is not a host name) it is the relative reference
 * `<prefix>/problems/<kind>` (RFC 9457 §3.1.1), which resolves to the same page.
 */
export const problemType = (kind: ProblemKind, origin = ''): string =>
  PROBLEMS_BASE.startsWith('/') ? `${origin}${PROBLEMS_BASE}/${kind}` : `${PROBLEMS_BASE}/${kind}`;

/** A host name or address with an optional port, and nothing else: what a Host header may hold to be an origin. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin a request was sent to, `http(s)://<host>`, from its protocol and Host (both as Fastify reads them:
 * X-Forwarded-Proto and -Host only when TRUST_PROXY says so); '' when the Host is missing or not a host name. A
 * client that forges its Host changes only its own answer's URLs, never another client's.
 */
export const requestOrigin = (request: { protocol: string; host: string | undefined }): string =>
  request.host !== undefined && HOST.test(request.host) ? `${request.protocol}://${request.host}` : '';

/** The `instance` of a request's problem documents. */
export const requestInstance = (id: string): string => `urn:request:${id}`;

/** An error that answers with a problem document; thrown by routes and stores, rendered by errors.ts. */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
    /** what kind of problem it is (see problem-kinds.ts); the status's usual kind when left out */
    readonly kind: ProblemKind = kindOfStatus(status),
  ) {
    super(detail);
  }

  /** The document, with the id and the origin (see `requestOrigin`) of the request it answers when there is one. */
  toDocument(requestId?: string, origin = ''): ProblemDocument {
    const document: ProblemDocument = {
      type: problemType(this.kind, origin),
      title: this.title,
      status: this.status,
      detail: this.detail,
    };
    if (requestId !== undefined) document.instance = requestInstance(requestId);
    if (this.errors !== undefined) document.errors = this.errors;
    return document;
  }
}

/** A problem of a kind of the table: its status and title are the kind's. */
export const problem = (
  kind: ProblemKind,
  detail: string,
  errors?: FieldError[],
  headers?: Record<string, string>,
): HttpProblem => {
  const { status, title } = PROBLEM_KINDS[kind];
  return new HttpProblem(status, title, detail, errors, headers, kind);
};

export const badRequest = (detail: string, errors?: FieldError[]): HttpProblem =>
  problem('validation', detail, errors);

export const notFound = (detail: string): HttpProblem => problem('not-found', detail);

/** A 409 whose record is not in a state that allows the request (an action's `when`), unless another kind is named. */
export const conflict = (detail: string, kind: ProblemKind = 'conflict-state'): HttpProblem =>
  problem(kind, detail);

/** Not now, worth a retry: the database cannot answer, or the server is shutting down. */
export const serviceUnavailable = (detail: string): HttpProblem =>
  problem('unavailable', detail, undefined, { 'retry-after': '1' });

/**
 * What an action handler that has not been written yet answers; `route` is the method and the path (`POST <path>`,
 * `GET <path>`), or a POST's path alone, as the stubs an earlier restsmith wrote give it.
 */
export const notImplemented = (route: string): HttpProblem =>
  problem(
    'not-implemented',
    `${route.startsWith('/') ? 'POST ' : ''}${route.replace(':id', '{id}')} has no handler yet: write it in src/handlers/`,
  );

/** The JSON Schema of a problem document, for response serialisation and the OpenAPI document. */
export const problemSchema = {
  $id: 'Problem',
  type: 'object',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, message: { type: 'string' } },
        required: ['path', 'message'],
      },
    },
  },
  required: ['type', 'title', 'status', 'detail'],
} as const;
