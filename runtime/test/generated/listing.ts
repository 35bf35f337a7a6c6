import assert from 'node:assert/strict';
import type { Records } from './access.js';
import { tokens, type Json, type JsonObject } from './harness.js';

/** What a listing of a collection can filter and sort on: each field, how its values compare, its operators. */
export interface Listing {
  collection: string;
  /** the largest page (limits.pageSize.max) */
  max: number;
  fields: {
    name: string;
    kind: 'text' | 'datetime' | 'integer' | 'number' | 'boolean';
    operators: string[];
    /** the actions of a record that give the field a value, one after the other (a field only actions set) */
    setBy?: string[];
  }[];
}

/** How many records a listing test makes, to page through and filter. */
export const LISTED = 5;

interface Page {
  items: JsonObject[];
  nextCursor: string | null;
}

/** Every item of a listing, page after page (`limit` each), as the administrator or `token`; at most 1,000 pages. */
export async function everyItem(
  records: Records,
  path: string,
  query: string,
  limit: number,
  as?: string | null,
): Promise<JsonObject[]> {
  const token = as === undefined ? await tokens.administrator() : as;
  const items: JsonObject[] = [];
  let cursor: string | null = '';
  for (let page = 0; cursor !== null && page < 1000; page += 1) {
    const after = cursor === '' ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const answer = await records.call('GET', `${path}?limit=${limit}${query}${after}`, token);
    assert.equal(answer.status, 200, `GET ${path}?${query}: ${JSON.stringify(answer.body)}`);
    const body = answer.body as unknown as Page;
    assert.ok(body.items.length <= limit, `a page holds at most limit=${limit} items`);
    items.push(...body.items);
    cursor = body.nextCursor;
  }
  assert.equal(cursor, null, 'the listing ends');
  return items;
}

/** The records a listing test pages through: LISTED of them, made for it. */
export async function made(records: Records, collection: string): Promise<JsonObject[]> {
  const made: JsonObject[] = [];
  // a ref to the collection itself is filled once its shared record is made: made first, so the filter on it has a value
  if (Object.values(records.fixture(collection).refs).includes(collection)) await records.shared(collection);
  for (let i = 0; i < LISTED; i += 1) made.push(await records.fresh(collection));
  return made;
}

/** Small pages, followed through nextCursor, show every record once. */
export async function checkPaging(records: Records, listing: Listing, mine: JsonObject[]): Promise<void> {
  const path = records.fixture(listing.collection).path;
  const ids = (await everyItem(records, path, '', Math.min(2, listing.max))).map((item) => item.id);
  assert.equal(new Set(ids).size, ids.length, 'no record on two pages');
  for (const record of mine)
    assert.ok(ids.includes(record.id ?? null), `record ${String(record.id)} is listed`);
}

/** A limit past the largest page, or under 1, is a 400 problem. */
export async function checkLimits(records: Records, listing: Listing): Promise<void> {
  const path = records.fixture(listing.collection).path;
  const token = await tokens.administrator();
  for (const limit of [listing.max + 1, 0]) {
    const answer = await records.call('GET', `${path}?limit=${limit}`, token);
    assert.equal(answer.status, 400, `limit=${limit}: ${JSON.stringify(answer.body)}`);
  }
}

const compare = (a: Json, b: Json): number =>
  a === b ? 0 : (a as string | number | boolean) < (b as string | number | boolean) ? -1 : 1;

/** Sorted on each field both ways, page after page: the values that are not null come in order. */
export async function checkSort(
  records: Records,
  listing: Listing,
  field: Listing['fields'][number],
): Promise<void> {
  const path = records.fixture(listing.collection).path;
  for (const [sort, sign] of [
    [field.name, 1],
    [`-${field.name}`, -1],
  ] as const) {
    const items = await everyItem(records, path, `&sort=${sort}`, Math.min(3, listing.max));
    const values = items.map((item) => item[field.name] ?? null).filter((v) => v !== null);
    for (let i = 1; i < values.length; i += 1)
      assert.ok(
        sign * compare(values[i - 1] ?? null, values[i] ?? null) <= 0,
        `sort=${sort}: ${JSON.stringify(values)}`,
      );
  }
}

/** The ids of the records made that checkFilter took through actions: no longer as they were made. */
const tookActions = new Set<Json>();

/** Filtered on a value of one of the records made (`field=value`, and `[gte]` where it applies): exactly the matches. */
export async function checkFilter(
  records: Records,
  listing: Listing,
  field: Listing['fields'][number],
  mine: JsonObject[],
): Promise<string | undefined> {
  const path = records.fixture(listing.collection).path;
  const valued = (r: JsonObject): boolean => r[field.name] !== null && r[field.name] !== undefined;
  let record = mine.find(valued);
  // a field only actions set: a record made that no actions took yet (it is as it was made) takes them
  const index = mine.findIndex((r) => !tookActions.has(r.id ?? null));
  const fresh = mine[index];
  if (record === undefined && field.setBy !== undefined && fresh !== undefined) {
    tookActions.add(fresh.id ?? null);
    record = await records.take(`${path}/${String(fresh.id)}`, field.setBy);
    // what the listing now holds
    if (record !== undefined) mine[index] = record;
    record = record !== undefined && valued(record) ? record : undefined;
  }
  if (record === undefined) return `no record made has a value for ${field.name}`;
  const value = record[field.name] ?? null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const equal = await everyItem(records, path, `&${field.name}=${encodeURIComponent(text)}`, listing.max);
  assert.ok(equal.length > 0 && equal.every((item) => item[field.name] === value), `${field.name}=${text}`);
  assert.ok(
    equal.some((item) => item.id === record.id),
    `${field.name}=${text} lists the record`,
  );
  if (field.operators.includes('gte')) {
    const query = `&${field.name}[gte]=${encodeURIComponent(text)}`;
    const atLeast = await everyItem(records, path, query, listing.max);
    assert.ok(
      atLeast.every((item) => item[field.name] !== null && compare(item[field.name] ?? null, value) >= 0),
      query,
    );
    assert.ok(
      atLeast.some((item) => item.id === record.id),
      `${query} lists the record`,
    );
  }
  return undefined;
}
