import { AsyncResource } from 'node:async_hooks';
import type { Bound, Database, Dialect, Row, SqlValue, Statement } from '../db/database.js';
import type { JsonValue } from '../types.js';

/** What a write did to one record, for its event: made by the resource's store from the row the write returned. */
export interface Change {
  recordId: string | number;
  version: number;
  /** the record as the API returns it (an event of a deletion carries null) */
  record: JsonValue | null;
  /** the values of its owner fields, for the feed's owner filtering (empty: none) */
  owners: readonly SqlValue[];
}

/**
 * The separator of the owner values stored with an event (`\x1fa\x1fb\x1f`): a subject that contains it matches none.
 * One text column answers "does this event name this owner" on both databases, without a table of its own.
 */
export const OWNER_SEPARATOR = '\x1f';

export const ownersText = (owners: readonly SqlValue[]): string | null => {
  const values = owners.filter((owner) => owner !== null).map(String);
  return values.length === 0 ? null : `${OWNER_SEPARATOR}${values.join(OWNER_SEPARATOR)}${OWNER_SEPARATOR}`;
};

/**
 * The key of the PostgreSQL advisory lock that orders the feed. Each write with events takes it SHARED just before
 * its event draws its `seq`, and holds it until it has committed or rolled back: shared holders do not wait for each
 * other, so concurrent writes with events, on every instance, commit in parallel. A reader of the feed first takes it
 * EXCLUSIVE for an instant (the barrier, see settled.ts), which waits for the writers in flight, and reads only through
 * the `seq` drawn last before it: every smaller one is committed or rolled back by then. So no reader sees an event
 * before one of a smaller `seq` that commits later (a plain sequence would let a transaction that drew 5 commit after
 * one that drew 6, and a reader skip 5).
 */
export const COMMIT_ORDER_LOCK = 7_170_117;

const INSERT: Record<Dialect, string> = {
  sqlite: `INSERT INTO "restsmith_events" ("type", "at", "owners", "actor", "event") VALUES (?, ?, ?, ?, ?)`,
  postgres: `
    INSERT INTO "restsmith_events" ("type", "at", "owners", "actor", "event")
    SELECT $1::text, $2::text, $3::text, $4::text, $5::text
    FROM (SELECT pg_advisory_xact_lock_shared(${COMMIT_ORDER_LOCK})) AS "commit_order"`,
};

/** Events a statement of `EventLog.eventRows`. */
const BATCH = 500;

/** Many event rows in one statement, in the order of a JSON array of rows (each the five values of INSERT's). */
const INSERT_MANY: Record<Dialect, string> = {
  sqlite: `
    INSERT INTO "restsmith_events" ("type", "at", "owners", "actor", "event")
    SELECT "value" ->> 0, "value" ->> 1, "value" ->> 2, "value" ->> 3, "value" ->> 4
    FROM json_each(?) ORDER BY "key"`,
  postgres: `
    INSERT INTO "restsmith_events" ("type", "at", "owners", "actor", "event")
    SELECT "row" ->> 0, "row" ->> 1, "row" ->> 2, "row" ->> 3, "row" ->> 4
    FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS "rows" ("row", "n")
    CROSS JOIN (SELECT pg_advisory_xact_lock_shared(${COMMIT_ORDER_LOCK})) AS "commit_order"
    ORDER BY "n"`,
};

/** An event as it is served, less its `seq` (the key of its row, put first when it is served: see feed.ts). */
function eventText(
  type: string,
  resource: string,
  at: string,
  actor: string | null,
  change: Change | null,
): string {
  return JSON.stringify({
    type,
    resource,
    recordId: change?.recordId ?? null,
    version: change?.version ?? null,
    at,
    actor,
    data: change?.record ?? null,
  });
}

/**
 * The outbox: each write of a store and its event row, in one transaction (see Database.atomically). An event is
 * stored as the JSON it is served as, less its `seq` (the row's key), with its type, time and owners beside it for
 * the feed's filters and the retention.
 */
export class EventLog {
  readonly #insert: Statement;
  #batch: Statement | undefined;
  readonly #listeners = new Set<() => void>();
  #written = 0;

  constructor(private readonly db: Database) {
    this.#insert = db.prepareText(INSERT[db.dialect]);
  }

  /**
   * Runs a write and records an event `<resource>.<kind>` for each row it returned, in one transaction; resolves to
   * the rows (none: nothing was written, and no event).
   */
  async record(
    write: Bound,
    resource: string,
    kind: string,
    actor: string | null,
    changeOf: (row: Row) => Change,
  ): Promise<Row[]> {
    const at = new Date().toISOString();
    const rows = await this.db.atomically(write, (written) =>
      written.map((row) => this.eventRow(resource, kind, at, actor, changeOf(row))),
    );
    if (rows.length > 0) this.committed(rows.length);
    return rows;
  }

  /**
   * The insert of one event `<resource>.<kind>`, for a transaction of the caller's (a deletion's event carries no
   * record); the caller tells `committed` once it has committed.
   */
  eventRow(resource: string, kind: string, at: string, actor: string | null, change: Change): Bound {
    return { statement: this.#insert, values: this.#values(resource, kind, at, actor, change) };
  }

  /**
   * The inserts of many events, in their order, for a transaction of the caller's: BATCH events a statement, so that
   * a delete that reaches thousands of records does not make thousands of round trips holding the commit order.
   */
  eventRows(
    events: readonly { resource: string; kind: string; change: Change }[],
    at: string,
    actor: string | null,
  ): Bound[] {
    this.#batch ??= this.db.prepareText(INSERT_MANY[this.db.dialect]);
    const statements: Bound[] = [];
    for (let from = 0; from < events.length; from += BATCH) {
      const rows = events
        .slice(from, from + BATCH)
        .map(({ resource, kind, change }) => this.#values(resource, kind, at, actor, change));
      statements.push({ statement: this.#batch, values: [JSON.stringify(rows)] });
    }
    return statements;
  }

  #values(resource: string, kind: string, at: string, actor: string | null, change: Change): SqlValue[] {
    const type = `${resource}.${kind}`;
    const event = eventText(
      type,
      resource,
      at,
      actor,
      kind === 'deleted' ? { ...change, record: null } : change,
    );
    return [type, at, ownersText(change.owners), actor, event];
  }

  /**
   * Records an event of no single write of a store: an action answered by your handler (its own writes through the
   * stores recorded theirs, each in the transaction of its write).
   */
  async append(resource: string, kind: string, change: Change | null, actor: string | null): Promise<void> {
    const at = new Date().toISOString();
    const type = `${resource}.${kind}`;
    const event = eventText(type, resource, at, actor, change);
    // one statement: its own transaction
    await this.#insert.run([type, at, ownersText(change?.owners ?? []), actor, event]);
    this.committed();
  }

  /** Tells the listeners that this instance committed `count` events (a write that recorded its own, see db/store.ts). */
  committed(count = 1): void {
    this.#written += count;
    for (const listener of this.#listeners) listener();
  }

  /** The events this instance committed since it started: for the metrics (restsmith_events_written_total). */
  get written(): number {
    return this.#written;
  }

  /**
   * `listener` is called after each commit of this instance that recorded events (the stream wakes on it), in the
   * async context it subscribed in, not the committing request's: the work a listener starts (a stream's reads, the
   * webhooks' deliveries, for every request at once) is no part of that request's trace.
   */
  onCommit(listener: () => void): () => void {
    const bound = AsyncResource.bind(listener);
    this.#listeners.add(bound);
    return () => this.#listeners.delete(bound);
  }
}
