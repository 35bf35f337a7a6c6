import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../runtime/src/db/postgres.js';
import type { Database } from '../../runtime/src/db/database.js';
import { EventLog } from '../../runtime/src/events/log.js';
import { Dispatcher } from '../../runtime/src/webhooks/dispatcher.js';
import { Secrets } from '../../runtime/src/webhooks/secrets.js';
import { EVENT_TABLES, webhookTables } from '../../src/migrate/system-tables.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * The webhook fan-out of one instance while another instance's write holds a `seq` it drew (SPEC §10 "Scale of the
 * feed"): a subscription's cursor must not pass that `seq` before it commits, or its event is never delivered.
 */

let url: string;
let own: pg.Client;
let one: Database;
let two: Database;

beforeAll(async () => {
  url = await databaseUrl('webhook-order');
  own = new pg.Client({ connectionString: url });
  await own.connect();
  for (const statement of [...EVENT_TABLES.postgres, ...webhookTables('postgres')]) await own.query(statement);
  one = openPostgres(url, 4);
  two = openPostgres(url, 4);
});
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await own?.end();
});

const change = (id: string) => ({ recordId: id, version: 1, record: { id }, owners: [] });
const delivered = async (): Promise<string[]> =>
  (
    await own.query<{ id: string }>(
      `SELECT event::json ->> 'recordId' AS id FROM restsmith_deliveries WHERE webhook_id = 'w1' ORDER BY seq`,
    )
  ).rows.map((row) => row.id);
const settle = async (dispatcher: Dispatcher, until: () => Promise<boolean>, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  dispatcher.wake();
  while (!(await until()) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
};

describe('the webhook fan-out on PostgreSQL', () => {
  it('turns an event committed late, under a smaller seq, into a delivery all the same', async () => {
    const at = new Date().toISOString();
    // a subscription nothing can receive: only the deliveries made count here
    await own.query(
      `INSERT INTO restsmith_webhooks (id, url, types, description, enabled, secret, cursor, created_at, updated_at)
       VALUES ('w1', 'http://127.0.0.1:1/hook', NULL, NULL, 1, 'none', 0, $1, $1)`,
      [at],
    );
    const log = new EventLog(one);
    const dispatcher = new Dispatcher(
      one,
      log,
      new Secrets('a-key-of-thirty-two-characters-at-least'),
      {
        attempts: 1,
        firstDelayMs: 60_000,
      },
      true,
    );
    try {
      // instance two draws a seq and holds its transaction open; instance one commits the next
      const held = two.inTransaction(function* () {
        yield new EventLog(two).eventRow('notes', 'created', at, null, change('held'));
        yield { statement: two.prepareText('SELECT pg_sleep(1)'), values: [] };
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await log.append('notes', 'created', change('quick'), null);
      // (the held write commits in a second: the fan-out runs meanwhile, at once and at its next tick)
      await settle(dispatcher, async () => (await delivered()).length > 0, 700);
      // nothing past the held seq yet: the cursor waits for it
      expect(await delivered()).toEqual([]);
      await held;
      await settle(dispatcher, async () => (await delivered()).length === 2, 3_000);
      expect(await delivered()).toEqual(['held', 'quick']);
    } finally {
      await dispatcher.stop();
    }
  });
});
