import { describe, expect, it } from 'vitest';
import type { Params, Prepared, Row } from '../../runtime/src/db/database.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { Store } from '../../runtime/src/db/store.js';

class Notes extends Store {
  protected readonly resource = 'notes';
  readonly insert = this.prepare<'id'>('INSERT INTO notes (id) VALUES (:id) RETURNING id');
  /** Store.write, as a generated store calls it */
  written<P extends Params>(statement: Prepared<P>, params: P): Promise<Row | undefined> {
    return this.write(statement, params, 'created');
  }
}

describe('Store.write', () => {
  it('writes and answers the row', async () => {
    const db = openSqlite(':memory:');
    await db.prepareText('CREATE TABLE notes (id TEXT PRIMARY KEY)').run([]);
    const notes = new Notes(db, Buffer.alloc(32));
    await expect(notes.written(notes.insert, { id: 'a' })).resolves.toEqual({ id: 'a' });
    await db.close();
  });

  it('rejects, not throws, when a binding leaves a parameter out (a reviewer)', async () => {
    const db = openSqlite(':memory:');
    await db.prepareText('CREATE TABLE notes (id TEXT PRIMARY KEY)').run([]);
    const notes = new Notes(db, Buffer.alloc(32));
    let answer: Promise<unknown> | undefined;
    expect(() => (answer = notes.written(notes.insert, {} as { id: string }))).not.toThrow();
    await expect(answer).rejects.toThrow('no value for the parameter :id');
    await db.close();
  });
});
