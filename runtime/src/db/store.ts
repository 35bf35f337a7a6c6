import type { Change, EventLog } from '../events/log.js';
import { loggedWrite, type EventShape, type LoggedParams } from '../events/logged.js';
import * as cascade from './cascade.js';
import type { Database, Params, Prepared, Row, SqlValue } from './database.js';
import type { ValueKind } from './list-sql.js';

/**
 * By store: the refs to its records that a delete follows (`onDelete: cascade` or `setNull`), each by the store of the
 * resource that holds it: the generated resources/index.ts's REFERRERS, with events.
 */
export type Referrers = Readonly<
  Record<string, readonly { holder: string; column: string; onDelete: 'cascade' | 'setNull' }[]>
>;

/**
 * Tells each store of `stores` the refs to its records, so that each record a delete deletes or clears gets its event
 * (makeStores, in resources/index.ts, with events).
 */
export const linkReferrers = (stores: Readonly<Record<string, Store>>, referrers: Referrers): void =>
  Store.link(stores, referrers);

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
  /**
   * With events on PostgreSQL: what a row written is as its event, so that a write and its event are one statement
   * (see events/logged.ts). Null: each write and its event are a transaction of two statements (SQLite, computed fields).
   */
  protected readonly eventShape: EventShape | null = null;
  /**
   * With events: the table, the columns `changeOf` reads and the id's kind, for the events of the records another
   * resource's delete reaches (see db/cascade.ts). Null: no events.
   */
  protected readonly stored: { table: string; columns: string; idKind: ValueKind } | null = null;
  #referrers: readonly cascade.Referrer[] = [];
  #asReached: cascade.Reached | undefined;
  /** the SQL of each statement prepared, and the logged form of each write (one per statement, made at its first use) */
  readonly #sql = new WeakMap<object, string>();
  readonly #logged = new WeakMap<object, Prepared<Params>>();

  constructor(db: Database, cursorKey: Buffer, events: EventLog | null = null) {
    this.db = db;
    this.cursorKey = cursorKey;
    this.events = events;
  }

  /** A statement with named parameters (`:name`); `Name` lists them, and a binding that leaves one out does not compile. */
  protected prepare<Name extends string>(sql: string): Prepared<Record<Name, SqlValue>> {
    const prepared = this.db.prepare<Record<Name, SqlValue>>(sql);
    this.#sql.set(prepared, sql);
    return prepared;
  }

  /**
   * Runs a write that returns the row it wrote (or removed): undefined when it wrote none. With events, its event
   * `<resource>.<kind>` is recorded in the same transaction (see events/log.ts), `actor` the subject it names.
   */
  protected write<P extends Params>(
    statement: Prepared<P>,
    params: P,
    kind: string,
    actor: string | null = null,
  ): Promise<Row | undefined> {
    const events = this.events;
    // not an async function: one that returns the statement's promise settles its own two microtasks later
    if (events === null) return statement.get(params);
    return this.#writeLogged(events, statement, params, kind, actor);
  }

  async #writeLogged<P extends Params>(
    events: EventLog,
    statement: Prepared<P>,
    params: P,
    kind: string,
    actor: string | null,
  ): Promise<Row | undefined> {
    if (this.db.dialect === 'postgres' && this.eventShape !== null) {
      const logged: LoggedParams = { event_at: new Date().toISOString(), event_actor: actor };
      const row = await this.#loggedOf(statement, kind, this.eventShape).get({ ...params, ...logged });
      if (row !== undefined) events.committed();
      return row;
    }
    const rows = await events.record(statement.bind(params), this.resource, kind, actor, (row) =>
      this.changeOf(row),
    );
    return rows[0];
  }

  /**
   * With events, a delete of a record that others' refs cascade from or are set null by (the generated store knows
   * which): one transaction (db/cascade.ts) that asks `guard`, the delete's own conditions as a query, first, then
   * reads what the delete reaches, runs it and records an event for every record it deleted or cleared, its own last.
   * Undefined when it removed nothing. Both statements bind the record's id as `:id`.
   */
  protected async deleteReaching<P extends Params>(
    remove: Prepared<P>,
    guard: Prepared<P>,
    params: P,
    actor: string | null,
  ): Promise<Row | undefined> {
    const events = this.events;
    if (events === null)
      throw new Error(`${this.resource} records no events: its definition has no \`events\``);
    // a transaction run again (see Database.inTransaction) says its count again
    let recorded = 0;
    const removal: cascade.Removal = {
      root: this.#reached,
      id: params.id ?? null,
      guard: guard.bind(params),
      remove: remove.bind(params),
      actor,
      recording: (count) => (recorded = count),
    };
    const row = await this.db.inTransaction(() => cascade.deleteReaching(this.db, events, removal));
    if (row !== undefined) events.committed(recorded);
    return row;
  }

  /** linkReferrers: here, where each store's own fields are in reach. */
  static link(stores: Readonly<Record<string, Store>>, referrers: Referrers): void {
    const named = (name: string): Store => {
      const store = stores[name];
      if (store === undefined) throw new Error(`no store ${name}`);
      return store;
    };
    for (const [name, list] of Object.entries(referrers)) {
      named(name).#referrers = list.map(({ holder, column, onDelete }) => ({
        holder: named(holder).#reached,
        column,
        onDelete,
      }));
    }
  }

  /** This store as a delete reaches it (cascade.ts): one object, made at its first use, which the walk tells apart. */
  get #reached(): cascade.Reached {
    const stored = this.stored;
    if (stored === null)
      throw new Error(`${this.resource} records no events: its definition has no \`events\``);
    this.#asReached ??= {
      resource: this.resource,
      ...stored,
      changeOf: (row) => this.changeOf(row),
      referrers: () => this.#referrers,
    };
    return this.#asReached;
  }

  /** `statement` made to record its event in the same statement, prepared at its first use. */
  #loggedOf(statement: object, kind: string, shape: EventShape): Prepared<Params> {
    const known = this.#logged.get(statement);
    if (known !== undefined) return known;
    const sql = this.#sql.get(statement);
    if (sql === undefined) throw new Error('a write not prepared by this store');
    const logged = this.db.prepare<Params>(loggedWrite(sql, this.resource, kind, shape));
    this.#logged.set(statement, logged);
    return logged;
  }

  /** The change a row written is, for its event: the stores of a definition with `events` say. */
  protected changeOf(_row: Row): Change {
    throw new Error(`${this.resource} records no events: its definition has no \`events\``);
  }
}
