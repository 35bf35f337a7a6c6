/** Any JSON value: the type of `json` fields. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A record with the version that its ETag is made from. */
export interface Versioned<T> {
  record: T;
  version: number;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** What a `set` action did: changed the record, found none, or found one its precondition refused. */
export type ActionOutcome<T> =
  | { kind: 'done'; result: Versioned<T> }
  | { kind: 'missing' }
  | { kind: 'stale' }
  | { kind: 'refused'; record: T };

/** What an action handler answers: a status (default 200) and a JSON body (default null). */
export interface ActionResult {
  status?: number;
  body?: JsonValue;
}
