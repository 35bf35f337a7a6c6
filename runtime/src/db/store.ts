import type { Database, Prepared, SqlValue } from './database.js';

/**
 * What every generated store starts from: the database and the key that signs listing cursors. A store declares each
 * statement as a field, beside the method that binds it; fields are prepared when the store is made, once.
 */
export abstract class Store {
  protected readonly db: Database;
  protected readonly cursorKey: Buffer;

  constructor(db: Database, cursorKey: Buffer) {
    this.db = db;
    this.cursorKey = cursorKey;
  }

  /** A statement with named parameters (`:name`); `Name` lists them, and a binding that leaves one out does not compile. */
  protected prepare<Name extends string>(sql: string): Prepared<Record<Name, SqlValue>> {
    return this.db.prepare<Record<Name, SqlValue>>(sql);
  }
}
