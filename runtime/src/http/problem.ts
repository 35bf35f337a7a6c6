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
  errors?: FieldError[];
}

/** An error that answers with a problem document; thrown by routes and stores, rendered by errors.ts. */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toDocument(): ProblemDocument {
    const document: ProblemDocument = {
      type: 'about:blank',
      title: this.title,
      status: this.status,
      detail: this.detail,
    };
    if (this.errors !== undefined) document.errors = this.errors;
    return document;
  }
}

export const badRequest = (detail: string, errors?: FieldError[]): HttpProblem =>
  new HttpProblem(400, 'Bad Request', detail, errors);

export const notFound = (detail: string): HttpProblem => new HttpProblem(404, 'Not Found', detail);

export const conflict = (detail: string): HttpProblem => new HttpProblem(409, 'Conflict', detail);

/** Not now, worth a retry: the database cannot answer, or the server is shutting down. */
export const serviceUnavailable = (detail: string): HttpProblem =>
  new HttpProblem(503, 'Service Unavailable', detail, undefined, { 'retry-after': '1' });

/**
 * What an action handler that has not been written yet answers; `route` is the method and the path (`POST <path>`,
 * `GET <path>`), or a POST's path alone, as the stubs an earlier restsmith wrote give it.
 */
export const notImplemented = (route: string): HttpProblem =>
  new HttpProblem(
    501,
    'Not Implemented',
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
