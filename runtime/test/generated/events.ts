import assert from 'node:assert/strict';
import { CannotCheck, tokenOf, type Matrix, type Records } from './access.js';
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

/** A ref that a delete of its target follows (test/generated/reaches.json). */
export interface Reach {
  target: string;
  holder: string;
  field: string;
  onDelete: 'cascade' | 'setNull';
}

/**
 * A record of `holder` referring to a record of `target` through `field`; the administrator deletes the target: the
 * feed shows the referrer's event before the target's own (`deleted` for cascade; `updated`, the ref cleared, for
 * setNull). Skipped when the target's delete is refused here (a state its rule needs, another ref that restricts).
 */
export async function checkReach(
  records: Records,
  { target, holder, field, onDelete }: Reach,
): Promise<void> {
  const parent = await records.fresh(target);
  const child = await records.fresh(holder, { [field]: parent.id ?? null });
  const after = await newest(records);
  const administrator = await tokens.administrator();
  const deleted = await records.call(
    'DELETE',
    `${records.fixture(target).path}/${String(parent.id)}`,
    administrator,
  );
  if (deleted.status !== 204)
    throw new CannotCheck(
      `the ${target} record could not be deleted here (${deleted.status}): nothing to check`,
    );
  const events = await feed(records, administrator, after);
  assert.ok(Array.isArray(events), `GET /events as the administrator: ${String(events)}`);
  const kind = onDelete === 'cascade' ? 'deleted' : 'updated';
  const own = events.findIndex((e) => e.type === `${target}.deleted` && e.recordId === parent.id);
  const reached = events.findIndex((e) => e.type === `${holder}.${kind}` && e.recordId === child.id);
  assert.ok(own >= 0, `${target}.deleted is in the feed`);
  assert.ok(reached >= 0 && reached < own, `${holder}.${kind} of the record referring to it comes before it`);
  if (onDelete === 'setNull')
    assert.equal(events[reached]?.data?.[field], null, `${holder}.${field} is cleared`);
}
