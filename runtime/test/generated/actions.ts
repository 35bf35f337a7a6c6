import assert from 'node:assert/strict';
import { ADMIN_ROLE } from '../../src/app.js';
import type { Records } from './access.js';
import { tokens, type Json, type JsonObject } from './harness.js';

/** An action that sets fields: what it sets (`now`: the time of the call), and whether a second call is a 409. */
export interface SetAction {
  name: string;
  /** field → the value it takes, or `{ now: true }` for the time of the call */
  set: Record<string, Json>;
  /** the states it needs */
  when: Record<string, Json[]>;
}

/** An action your handler answers: a valid input (a body, or the query of a GET), and whether you wrote it yet. */
export interface HandlerAction {
  name: string;
  /** its key in your handlers object */
  handler: string;
  method: 'GET' | 'POST';
  item: boolean;
  input: JsonObject | null;
}

const admin = (): Promise<string> => tokens.of('test-administrator', [ADMIN_ROLE]);

const holds = (record: JsonObject, when: Record<string, Json[]>): boolean =>
  Object.entries(when).every(([field, values]) => values.some((v) => v === record[field]));

/**
 * Calls a `set` action on a record of its own: 200 with every field set (a datetime set to `now` is the time of the
 * call), the version one more; then again: a 409 once the record is outside the action's `when`, else 200.
 */
export async function checkSet(records: Records, collection: string, action: SetAction): Promise<void> {
  const record = await records.fresh(collection);
  const url = `${records.fixture(collection).path}/${String(record.id)}/${action.name}`;
  const token = await admin();
  const before = Date.now();
  const first = await records.call('POST', url, token);
  if (!holds(record, action.when)) {
    assert.equal(first.status, 409, `${url} outside its when: ${JSON.stringify(first.body)}`);
    return;
  }
  assert.equal(first.status, 200, `${url}: ${JSON.stringify(first.body)}`);
  const done = first.body as JsonObject;
  for (const [field, value] of Object.entries(action.set)) {
    if (typeof value === 'object' && value !== null && 'now' in value) {
      const at = Date.parse(String(done[field]));
      assert.ok(
        at >= before - 1000 && at <= Date.now() + 1000,
        `${field} is the time of the call: ${String(done[field])}`,
      );
    } else assert.deepEqual(done[field], value, `${action.name} sets ${field}`);
  }
  const second = await records.call('POST', url, token);
  assert.equal(
    second.status,
    holds(done, action.when) ? 200 : 409,
    `${url} again: ${JSON.stringify(second.body)}`,
  );
}

/**
 * Calls an action your handler answers, as the administrator with a valid input: 501 while `written` is false (the
 * stub restsmith made), anything but 501 once you wrote it.
 */
export async function checkHandler(
  records: Records,
  collection: string,
  action: HandlerAction,
  written: boolean,
): Promise<void> {
  const path = records.fixture(collection).path;
  const base = action.item ? `${path}/${String((await records.fresh(collection)).id)}` : path;
  const query =
    action.method === 'GET' && action.input !== null
      ? `?${new URLSearchParams(Object.entries(action.input).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString()}`
      : '';
  const body = action.method === 'POST' && action.input !== null ? action.input : undefined;
  const answer = await records.call(action.method, `${base}/${action.name}${query}`, await admin(), body);
  const detail = `${action.method} ${base}/${action.name}: ${JSON.stringify(answer.body)}`;
  if (written) assert.notEqual(answer.status, 501, detail);
  else assert.equal(answer.status, 501, detail);
}
