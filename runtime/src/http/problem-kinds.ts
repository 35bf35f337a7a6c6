/**
 * The kinds of problem this server answers with (RFC 9457 `type`): one row each, with its status, the title of its
 * documents (the status's reason phrase, as before kinds were named), and what its page at `<prefix>/problems/<kind>`
 * says. The one place the kinds are named: the runtime builds every problem document from it, and restsmith reads it
 * to list them in the generated README and the OpenAPI document's `Problem` schema. It imports nothing.
 */
export interface ProblemKindInfo {
  status: number;
  /** the statuses its documents may have, where more than `status` (the README and the OpenAPI document say it) */
  statuses?: string;
  title: string;
  /** what the problem means, one sentence */
  means: string;
  /** what a client does about it, one sentence */
  todo: string;
}

export const PROBLEM_KINDS = {
  validation: {
    status: 400,
    title: 'Bad Request',
    means:
      'The body, query or a header breaks the API’s rules: a missing or wrong field, a read-only field, an unknown parameter, a forged cursor.',
    todo: 'Fix what `detail` and each entry of `errors` (a JSON Pointer and a message) name, then send it again; as it is, it fails every time.',
  },
  malformed: {
    status: 400,
    title: 'Bad Request',
    means:
      'The request cannot be read: a body that is not well-formed JSON or not UTF-8, an empty body, a URL that cannot be decoded, bytes that are not HTTP.',
    todo: 'Send well-formed JSON in UTF-8, with a URL encoded as RFC 3986 says.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    means: 'The operation needs a valid bearer token, and there was none, or it is invalid or expired.',
    todo: 'Send `Authorization: Bearer <token>` with a valid, unexpired token (`WWW-Authenticate` says what was wrong).',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    means: 'The token is valid, but the access rule does not admit its caller for this operation or record.',
    todo: 'Do not retry with the same token: use one whose roles or subject the rule admits.',
  },
  'not-found': {
    status: 404,
    title: 'Not Found',
    means: 'No record has this id (or none the caller may see), or no route has this path.',
    todo: 'Check the id and the path; a record that was deleted stays gone.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method Not Allowed',
    means: 'The path exists, but does not take this method.',
    todo: 'Use one of the methods the `Allow` header names.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request Timeout',
    means: 'The request took longer to arrive than the server waits.',
    todo: 'Send it again, whole and without pauses.',
  },
  'conflict-unique': {
    status: 409,
    title: 'Conflict',
    means: 'A value that must be unique is taken by another record (`errors` names the fields).',
    todo: 'Choose another value, or read the record that holds it.',
  },
  'conflict-reference': {
    status: 409,
    title: 'Conflict',
    means:
      'A reference names a record that does not exist (or that the caller may not read), or other records’ references forbid this delete.',
    todo: 'Send the id of an existing record; to delete, first delete or change the records that refer to this one.',
  },
  'conflict-state': {
    status: 409,
    title: 'Conflict',
    means:
      'The record (or the collection) is not in a state that allows this: an action’s precondition failed.',
    todo: 'Read the record, and act only once it is in a state `detail` names; retrying as it is fails again.',
  },
  'conflict-concurrent': {
    status: 409,
    title: 'Conflict',
    means:
      'Another request got there first: the record changed while this one was written, or a request with this Idempotency-Key is still running.',
    todo: 'Read the record again, then retry.',
  },
  gone: {
    status: 410,
    title: 'Gone',
    means: 'The events after the id given are no longer kept.',
    todo: 'Read the records again, then follow the feed without `after` (from the oldest event kept).',
  },
  'precondition-failed': {
    status: 412,
    title: 'Precondition Failed',
    means: 'The record changed since the ETag sent in `If-Match`: nothing was changed.',
    todo: 'Read the record again (its new `ETag`), apply the change to it, and send it with that ETag.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Content Too Large',
    means: 'The body is larger than the server takes.',
    todo: 'Send a smaller body; the limit is in `detail`.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported Media Type',
    means:
      'The body is not `application/json` (or `application/merge-patch+json` on PATCH) in UTF-8, uncompressed.',
    todo: 'Send JSON with `Content-Type: application/json`, in UTF-8 and without `Content-Encoding`.',
  },
  'idempotency-mismatch': {
    status: 422,
    title: 'Unprocessable Content',
    means: 'This `Idempotency-Key` was used before with another request body.',
    todo: 'Use a new key for a new request; repeat a request with its own key and the very same body.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too Many Requests',
    means:
      'The client sent more requests than the rate limit lets it in a window (or keeps too many streams open).',
    todo: 'Wait the seconds `Retry-After` says, then try again.',
  },
  'headers-too-large': {
    status: 431,
    title: 'Request Header Fields Too Large',
    means: 'The request’s headers are larger than the server reads.',
    todo: 'Send fewer or shorter headers (a smaller token, fewer cookies).',
  },
  'client-error': {
    status: 400,
    statuses: '4xx',
    title: 'Bad Request',
    means: 'A request the server refuses for a reason no other kind names (its status says which).',
    todo: 'Read `status` and `detail`.',
  },
  internal: {
    status: 500,
    title: 'Internal Server Error',
    means: 'A bug in the server: it has been logged, with this document’s `instance`.',
    todo: 'Retrying is unlikely to help; report it with the `instance` (the request id).',
  },
  'not-implemented': {
    status: 501,
    title: 'Not Implemented',
    means: 'The operation is declared, but its handler is not written yet.',
    todo: 'Nothing a client can do: the server’s developers write it in src/handlers/.',
  },
  unavailable: {
    status: 503,
    title: 'Service Unavailable',
    means:
      'The server cannot answer now: the database does not answer, tokens cannot be verified, or it is shutting down.',
    todo: 'Retry after the seconds `Retry-After` says (elsewhere, if another instance serves).',
  },
} as const satisfies Record<string, ProblemKindInfo>;

export type ProblemKind = keyof typeof PROBLEM_KINDS;

/** The kind a problem of this status is, when whoever made it named none (`new HttpProblem(409, …)`). */
export function kindOfStatus(status: number): ProblemKind {
  switch (status) {
    case 400:
      return 'validation';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    case 405:
      return 'method-not-allowed';
    case 408:
      return 'request-timeout';
    case 409:
      return 'conflict-state';
    case 410:
      return 'gone';
    case 412:
      return 'precondition-failed';
    case 413:
      return 'payload-too-large';
    case 415:
      return 'unsupported-media-type';
    case 429:
      return 'rate-limited';
    case 431:
      return 'headers-too-large';
    case 501:
      return 'not-implemented';
    case 503:
      return 'unavailable';
    default:
      return status < 500 ? 'client-error' : 'internal';
  }
}

/** Whether `name` is a kind of the table (own keys only: `__proto__`, `toString` are not). */
export const isProblemKind = (name: string): name is ProblemKind => Object.hasOwn(PROBLEM_KINDS, name);
