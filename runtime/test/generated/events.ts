import assert from 'node:assert/strict';
import { tokenOf, type Matrix, type Records } from './access.js';
import { tokens, type Json, type JsonObject } from './harness.js';

interface Event {
  seq: number;
  type: string;
  recordId: Json;
  data: JsonObject | null;
}

interface FeedPage {
  items: Event[];
  nextCursor: string | null;
}

/** Every event after `after` that `token` may see, page after page; the status when the feed refuses. */
async function feed(records: Records, token: string | null, after: number): Promise<Event[] | number> {
  const events: Event[] = [];
  let cursor: string | null = String(after);
  for (let page = 0; cursor !== null && page < 1000; page += 1) {
    const answer = await records.call('GET', `/events?after=${cursor}`, token);
    if (answer.status !== 200) return answer.status;
    const body = answer.body as unknown as FeedPage;
    events.push(...body.items);
    cursor = body.nextCursor;
  }
  return events;
}

/** The seq of the newest event (0: none yet), as the administrator sees the feed. */
async function newest(records: Records): Promise<number> {
  const events = await feed(records, await tokens.administrator(), 0);
  assert.ok(Array.isArray(events), `GET /events as the administrator: ${String(events)}`);
  return events.at(-1)?.seq ?? 0;
}

/**
 * A record made, then the feed as each caller of the matrix: the event of its creation carries the record as the API
 * answered, and is shown exactly to the callers who may read the record (the `read` row: 200); a token that is not
 * valid is a 401 for the whole feed, and so is no token where no resource's events are public.
 */
export async function checkFeed(
  records: Records,
  collection: string,
  { callers, rows }: Matrix,
): Promise<void> {
  const read = rows.find((row) => row.what === 'read');
  if (read === undefined) return;
  const after = await newest(records);
  const record = await records.fresh(collection);
  for (const [i, caller] of callers.entries()) {
    const token = await tokenOf(caller, records.ownerOf(collection, record));
    const events = await feed(records, token, after);
    if (caller === 'expired token' || caller === 'badly signed token') {
      assert.equal(events, 401, `the feed as ${caller}`);
      continue;
    }
    // without a token, a feed with no public events at all asks for one
    if (caller === 'no token' && events === 401 && read.statuses[i] !== 200) continue;
    assert.ok(Array.isArray(events), `the feed as ${caller}: ${String(events)}`);
    const created = events.find((e) => e.type === `${collection}.created` && e.recordId === record.id);
    const visible: boolean = read.statuses[i] === 200;
    assert.equal(
      created !== undefined,
      visible,
      `${collection}.created ${visible ? 'shown' : 'hidden'} to ${caller}`,
    );
    if (created !== undefined)
      assert.deepEqual(created.data, record, `the event carries the record (${caller})`);
  }
}
