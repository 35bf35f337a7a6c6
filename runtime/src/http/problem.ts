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
 * The `type` of a kind's documents: `<prefix>/problems/<kind>`, a relative reference (RFC 9457 §3.1.1) that resolves
 * against the document's own URL to the page this server serves for it; or `<problems.base>/<kind>` when the
 * definition gives a base. Never made from the request's Host: a type is the same string on every host and behind
 * every proxy, and a forged Host cannot put another site's URL in it.
 */
export const problemType = (kind: ProblemKind): string => `${PROBLEMS_BASE}/${kind}`;

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

  /** The document, with the id of the request it answers when there is one. */
  toDocument(requestId?: string): ProblemDocument {
    const document: ProblemDocument = {
      type: problemType(this.kind),
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
