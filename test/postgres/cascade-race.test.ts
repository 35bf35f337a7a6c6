import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteReaching, type Reached } from '../../runtime/src/db/cascade.js';
import type { Database, Row } from '../../runtime/src/db/database.js';
import { openPostgres } from '../../runtime/src/db/postgres.js';
import { EventLog } from '../../runtime/src/events/log.js';
import { EVENT_TABLES } from '../../src/migrate/system-tables.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * A delete that reaches records through refs, on PostgreSQL, while another transaction makes a record refer to the
 * one deleted. Writes with events no longer take one exclusive lock (events/log.ts), so the delete locks what it
 * reaches itself (db/cascade.ts): the record cleared by the foreign key must have its event, whatever the timing.
 */

let url: string;
let own: pg.Client;
let db: Database;

const reached = (resource: string, table: string, columns: string, referrers: () => Reached['referrers']): Reached => ({
  resource,
  table,
  columns,
  idKind: 'text',
  changeOf: (row: Row) => ({ recordId: String(row.id), version: Number(row.version), record: row, owners: [] }),
  referrers: () => referrers()(),
});
const orders: Reached = reached('orders', 'orders', '"id", "product_id", "version"', () => () => []);
const products: Reached = reached('products', 'products', '"id", "version"', () => () => [
  { holder: orders, column: 'product_id', onDelete: 'setNull' },
]);

beforeAll(async () => {
  url = await databaseUrl('cascade-race');
  own = new pg.Client({ connectionString: url });
  await own.connect();
  for (const statement of EVENT_TABLES.postgres) await own.query(statement);
  await own.query(`CREATE TABLE products (id TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TEXT)`);
  await own.query(`CREATE TABLE orders (id TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TEXT,
    product_id TEXT REFERENCES products (id) ON DELETE SET NULL)`);
  db = openPostgres(url, 4);
});
afterAll(async () => {
  await db?.close();
  await own?.end();
});

describe('a delete that clears refs, on PostgreSQL', () => {
  it('records the clearing of a record that came to refer to it while the delete ran', async () => {
    await own.query(`INSERT INTO products VALUES ('p1', 1, NULL)`);
    await own.query(`INSERT INTO orders VALUES ('o-before', 1, NULL, 'p1')`);
    // another instance's write: its order refers to p1 (its foreign key check holds p1), not yet committed
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO orders VALUES ('o-during', 1, NULL, 'p1')`);
      const log = new EventLog(db);
      const deleting = db.inTransaction(() =>
        deleteReaching(db, log, {
          root: products,
          id: 'p1',
          guard: { statement: db.prepareText(`SELECT 1 FROM products WHERE id = $1`), values: ['p1'] },
          remove: {
            statement: db.prepareText(`DELETE FROM products WHERE id = $1 RETURNING "id", "version"`),
            values: ['p1'],
          },
          actor: null,
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.query('COMMIT');
      expect(await deleting).toEqual({ id: 'p1', version: 1 });
    } finally {
      await writer.end();
    }
    const events = await own.query<{ type: string; id: string }>(
      `SELECT type, event::json ->> 'recordId' AS id FROM restsmith_events ORDER BY seq`,
    );
    const cleared = await own.query(`SELECT id FROM orders WHERE product_id IS NULL ORDER BY id`);
    expect(cleared.rows).toEqual([{ id: 'o-before' }, { id: 'o-during' }]);
    // each record the foreign key cleared has its event, then the product's
    expect(events.rows.map((e) => `${e.type} ${e.id}`).sort()).toEqual([
      'orders.updated o-before',
      'orders.updated o-during',
      'products.deleted p1',
    ]);
  });
});
