import type { Change, EventLog } from '../events/log.js';
import type { Database, Params, Prepared, Row, SqlValue } from './database.js';

/**
 * What every generated store starts from: the database, the key that signs listing cursors and, when the definition
 * has `events`, the event log. A store declares each statement as a field, beside the method that binds it; fields are
 * prepared when the store is made, once.
 */
export abstract class Store {
  protected readonly db: Database;
  protected readonly cursorKey: Buffer;
  protected readonly events: EventLog | null;
  /** the collection, as event types name it (`books.created`) */
  protected abstract readonly resource: string;

  constructor(db: Database, cursorKey: Buffer, events: EventLog | null = null) {
    this.db = db;
    this.cursorKey = cursorKey;
    this.events = events;
  }

  /** A statement with named parameters (`:name`); `Name` lists them, and a binding that leaves one out does not compile. */
  protected prepare<Name extends string>(sql: string): Prepared<Record<Name, SqlValue>> {
    return this.db.prepare<Record<Name, SqlValue>>(sql);
  }

  /**
   * Runs a write that returns the row it wrote (or removed): undefined when it wrote none. With events, its event
   * `<resource>.<kind>` is recorded in the same transaction (see events/log.ts), `actor` the subject it names.
   */
  protected async write<P extends Params>(
    statement: Prepared<P>,
    params: P,
    kind: string,
    actor: string | null = null,
  ): Promise<Row | undefined> {
    if (this.events === null) return statement.get(params);
    const rows = await this.events.record(statement.bind(params), this.resource, kind, actor, (row) =>
      this.changeOf(row),
    );
    return rows[0];
  }

  /** The change a row written is, for its event: the stores of a definition with `events` say. */
  protected changeOf(_row: Row): Change {
    throw new Error(`${this.resource} records no events: its definition has no \`events\``);
  }
}
