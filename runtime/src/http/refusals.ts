import { ScanRefusedError } from '../db/database.js';

/**
 * Why a request was refused before it was served, as the metrics count it (restsmith_requests_refused_total, see
 * metrics/requests.ts): the rate limit (http/rate-limit.ts), the caps on listings that scan (db/scan-gate.ts: the
 * client's share, every slot and the queue taken, the deadline), a saturated event loop (http/pressure.ts), and the
 * caps on event streams (a client's, the instance's). The error that refuses carries its reason under a symbol, set
 * only when it refuses: nothing is counted here, and nothing kept.
 */
export const REFUSALS = [
  'rate_limit',
  'scan_client',
  'scan_busy',
  'scan_deadline',
  'overloaded',
  'streams_client',
  'streams_full',
] as const;
export type Refusal = (typeof REFUSALS)[number];

const REFUSAL = Symbol('restsmith.refusal');

type Marked = Error & { [REFUSAL]?: Refusal };

/** `error`, marked as a refusal for `reason`. */
export function refusing<E extends Error>(error: E, reason: Refusal): E {
  (error as Marked)[REFUSAL] = reason;
  return error;
}

/** Why `error` refused its request; undefined when it is no refusal. */
export function refusalOf(error: Error): Refusal | undefined {
  if (error instanceof ScanRefusedError) return `scan_${error.reason}`;
  return (error as Marked)[REFUSAL];
}
