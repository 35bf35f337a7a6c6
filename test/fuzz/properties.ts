import type { Operation, Oracle } from './oracle.js';
import { PROBLEM_KINDS, isProblemKind } from '../../runtime/src/http/problem-kinds.js';
import type { FuzzRequest, FuzzResponse } from './requests.js';

/** A property of one answer: undefined when it holds, else what is wrong. */
export type Property = (
  oracle: Oracle,
  operation: Operation,
  response: FuzzResponse,
  request: FuzzRequest,
) => string | undefined;

/** The id a request's URL names, decoded, when the operation has one. */
function requestedId(operation: Operation, request: FuzzRequest): string | undefined {
  const index = operation.path.split('/').indexOf('{id}');
  const segment = request.url.split('?')[0]!.split('/')[index];
  if (index < 0 || segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const mediaType = (response: FuzzResponse): string => (response.headers['content-type'] ?? '').split(';')[0]!.trim();

export const PROPERTIES: Record<string, Property> = {
  // but the 501 of a collection action whose handler the user has not written yet, which the document lists
  'never answers 5xx': (_o, operation, response) =>
    response.status >= 500 && !(response.status === 501 && operation.responses['501'] !== undefined)
      ? `a ${response.status} answer`
      : undefined,

  'answers every error with a problem document whose status is the HTTP status': (oracle, _op, response) => {
    if (response.status < 400) return undefined;
    if (mediaType(response) !== 'application/problem+json') return `content-type ${response.headers['content-type']}`;
    const body = response.json as { status?: unknown; type?: unknown; instance?: unknown } | undefined;
    if (body?.status !== response.status) return `problem status ${String(body?.status)} != ${response.status}`;
    const errors = oracle.validateProblem(body);
    if (errors.length > 0) return `not a Problem: ${errors.join('; ')}`;
    // its type names a kind of its status (the schema's enum holds every kind's), its instance the request's id
    const kind = String(body.type).split('/').pop() ?? '';
    const status = isProblemKind(kind) ? PROBLEM_KINDS[kind].status : undefined;
    if (status !== response.status && kind !== 'client-error')
      return `type ${String(body.type)} for a ${response.status}`;
    const id = response.headers['x-request-id'];
    return body.instance === `urn:request:${String(id)}`
      ? undefined
      : `instance ${String(body.instance)}, X-Request-Id ${String(id)}`;
  },

  'answers 2xx with the body and headers the document describes': (oracle, operation, response, request) => {
    if (response.status < 200 || response.status >= 300) return undefined;
    // a record is reached by its id as the API spells it, not by another spelling of it (uuids ignore case): the
    // answers about the record of the path — its reads and writes, its item actions (200); not a nested create (201)
    // or a read-only action under it, which answer other records or anything
    const aboutIt = operation.path.endsWith('/{id}') || (request.method === 'POST' && response.status === 200);
    const id = aboutIt ? requestedId(operation, request) : undefined;
    const record = response.json as { id?: unknown } | undefined;
    if (id !== undefined && record?.id !== undefined && String(record.id).toLowerCase() !== id.toLowerCase()) {
      return `the id ${JSON.stringify(id)} answers the record ${JSON.stringify(record.id)}`;
    }
    const documented = operation.responses[String(response.status)];
    if (documented === undefined) return `${response.status} is not documented`;
    for (const name of oracle.requiredHeaders(documented)) {
      if (response.headers[name.toLowerCase()] === undefined) return `no ${name} header`;
    }
    if (documented.content === undefined) return response.text === '' ? undefined : 'a body where none is documented';
    const errors = oracle.validate(operation, response.status, mediaType(response), response.json);
    return errors.length === 0 ? undefined : `body does not match the document: ${errors.join('; ')}`;
  },

  'answers only with statuses the document lists for the operation': (_o, operation, response) =>
    operation.documented && operation.responses[String(response.status)] === undefined
      ? `${response.status} is not documented`
      : undefined,

  'answers within a second': (_o, _op, response) =>
    response.milliseconds > 1000 ? `took ${response.milliseconds} ms` : undefined,
};
