/** Any JSON value: the type of `json` fields. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A record with the version that its ETag is made from. */
export interface Versioned<T> {
  record: T;
  version: number;
}

/**
 * How your code writes through a store where the resource's update or delete rule has a `when`: those states bind
 * the API's PUT, PATCH and DELETE, and the store's `replace`, `patch` and `delete` keep them unless `anyState` says
 * the write is your code's (an action's handler changing a record in a state a client may not edit it in).
 */
export interface WriteOptions {
  anyState?: boolean;
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

/**
 * What an action handler answers: a status (default 200) and a JSON body (default null) — a record as the store
 * returns it is one. `version`, the version of the record the body is (`Versioned.version`), sends its ETag; an item
 * action's handler that answers with the record it was given unchanged sends that record's ETag by itself.
 */
export interface ActionResult {
  status?: number;
  body?: JsonValue;
  version?: number;
}
