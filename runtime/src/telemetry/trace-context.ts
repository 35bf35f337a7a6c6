import type { IncomingMessage } from 'node:http';

/**
 * The trace a request belongs to, as its log lines say it (`traceId`): the one the OpenTelemetry setup started for
 * it (telemetry/otel.ts keeps it on the request under TRACE_ID), else the trace id of the request's W3C
 * `traceparent` when it is a valid one (a caller's, or a proxy's, trace: the lines of this server can be found
 * under it), else none. Without OpenTelemetry nothing else of the header is used: this server starts no span, so it
 * passes no trace on.
 */
export const TRACE_ID: unique symbol = Symbol('restsmith.traceId');

interface Traced {
  [TRACE_ID]?: string;
}

/** `version-traceid-parentid-flags`, lower-case hex; a later version may add fields after a `-`. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
const NO_TRACE = '0'.repeat(32);
const NO_PARENT = '0'.repeat(16);

/** The trace id of a `traceparent` header (W3C Trace Context §3.2), or undefined when it is not a valid one. */
export function traceIdOfHeader(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length < 55) return undefined;
  const match = TRACEPARENT.exec(header);
  if (match === null) return undefined;
  const [, version, traceId, parentId, more] = match;
  if (version === 'ff' || traceId === NO_TRACE || parentId === NO_PARENT) return undefined;
  // version 00 is exactly its four fields
  if (version === '00' && more !== undefined) return undefined;
  return traceId;
}

/** The trace id of a request's log lines (see TRACE_ID). */
export const traceIdOf = (raw: IncomingMessage): string | undefined =>
  (raw as Traced)[TRACE_ID] ?? traceIdOfHeader(raw.headers.traceparent);

/** Keeps the trace id of the trace started for a request (by telemetry/otel.ts). */
export function keepTraceId(raw: IncomingMessage, traceId: string): void {
  (raw as Traced)[TRACE_ID] = traceId;
}
