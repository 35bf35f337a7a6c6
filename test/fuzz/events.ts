import fc, { type Arbitrary } from 'fast-check';
import { createParser } from 'eventsource-parser';
import type { Oracle } from './oracle.js';
import type { Callers, FuzzRequest } from './requests.js';

/**
 * The event feed as the fuzzer reaches it: the requests of the document's arbitrary mostly name an `after` past the
 * newest event or types no resource has (400s); these are requests a reader makes, which the feed answers 200 with
 * events, so that its answers are held to the document (the events of every resource, from every caller).
 */
export interface EventNames {
  /** the resources with events, by the discriminator of `Event` */
  resources: string[];
  /** every event type, by the resources' event schemas */
  types: string[];
}

interface EventSchema {
  oneOf?: { $ref: string }[];
  discriminator?: { mapping?: Record<string, string> };
}

/** The resources and event types the document's `Event` names; undefined when the API has no events. */
export function eventNames(document: {
  paths: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
}): EventNames | undefined {
  if (document.paths['/events'] === undefined) return undefined;
  const schemas = document.components.schemas;
  const event = schemas.Event as EventSchema | undefined;
  const mapping = event?.discriminator?.mapping ?? {};
  const types = Object.values(mapping).flatMap((ref) => {
    const own = schemas[ref.split('/').pop() ?? ''] as { properties?: { type?: { $ref?: string } } } | undefined;
    const enumRef = own?.properties?.type?.$ref?.split('/').pop() ?? '';
    return ((schemas[enumRef] as { enum?: string[] } | undefined)?.enum ?? []).map(String);
  });
  return { resources: Object.keys(mapping), types };
}

/** GET /events as a reader sends it: an `after` up to the newest, some resources and types, a limit, any caller. */
export function feedRequests(names: EventNames, newest: number, callers: Callers): Arbitrary<FuzzRequest> {
  const types = fc.subarray([...names.resources, ...names.types], { minLength: 1, maxLength: 4 });
  const query = fc.record(
    {
      after: fc.integer({ min: 0, max: newest }),
      types: types.map((list) => list.join(',')),
      limit: fc.integer({ min: 1, max: 20 }),
    },
    { requiredKeys: [] },
  );
  return fc.tuple(query, fc.constantFrom(...Object.keys(callers))).map(([parameters, caller]): FuzzRequest => {
    const search = new URLSearchParams(Object.entries(parameters).map(([k, v]) => [k, String(v)])).toString();
    const authorization = callers[caller];
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    return { method: 'GET', url: `/events${search === '' ? '' : `?${search}`}`, headers };
  });
}

/** What a stream answered within `ms`: its status and content type, and its events' data (or the problem). */
export interface StreamAnswer {
  status: number;
  contentType: string;
  events: { type: string; data: unknown }[];
  problem?: unknown;
}

/** Opens GET /events/stream, reads it for `ms` at most (or until `enough` events), and closes it. */
export async function readStream(
  url: string,
  headers: Record<string, string>,
  ms = 500,
  enough = 20,
): Promise<StreamAnswer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  const events: StreamAnswer['events'] = [];
  try {
    const response = await fetch(url, { headers, signal: abort.signal });
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.startsWith('text/event-stream') || response.body === null) {
      return { status: response.status, contentType, events, problem: await response.json().catch(() => undefined) };
    }
    const parser = createParser({
      onEvent: (event) => events.push({ type: event.event ?? 'message', data: JSON.parse(event.data) as unknown }),
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
        if (events.length >= enough) break;
      }
    } catch (error) {
      // the time given is up: what was read is the answer
      if (!abort.signal.aborted) throw error;
    }
    return { status: response.status, contentType, events };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** What is wrong with a stream's answer against the document; undefined when nothing is. */
export function streamWrong(oracle: Oracle, answer: StreamAnswer, documented: readonly string[]): string | undefined {
  if (!documented.includes(String(answer.status))) return `${answer.status} is not documented`;
  if (answer.status !== 200) {
    const errors = oracle.validateProblem(answer.problem);
    return errors.length === 0 ? undefined : `not a Problem: ${errors.join('; ')}`;
  }
  if (!answer.contentType.startsWith('text/event-stream')) return `content-type ${answer.contentType}`;
  for (const event of answer.events) {
    // an `error` event says why the stream ends (its events were removed, or the database failed): not an Event
    if (event.type === 'error') continue;
    const errors = oracle.validateComponent('Event', event.data);
    if (errors.length > 0) return `the event ${JSON.stringify(event.data)} is not an Event: ${errors.join('; ')}`;
    if ((event.data as { type?: unknown }).type !== event.type) return `event: ${event.type} names another type`;
  }
  return undefined;
}
