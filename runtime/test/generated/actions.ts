import assert from 'node:assert/strict';
import { CannotCheck, holds, queryOf, type Records } from './access.js';
import { tokens, type Json, type JsonObject } from './harness.js';

/** How an action is called: in its states, with a valid input. */
interface Reaching {
  /** the states it needs */
  when: Record<string, Json[]>;
  /** the actions that take a new record into them, one after the other (none: it is made there); null: none do */
  path: string[] | null;
  /** a valid input (its body, or a GET's query); null when it takes none, or none could be made */
  input: JsonObject | null;
}

/** An action that sets fields: what it sets (`now`: the time of the call). */
export interface SetAction extends Reaching {
  name: string;
  /** field → the value it takes, or `{ now: true }` for the time of the call */
  set: Record<string, Json>;
}

/** An action your handler answers, and whether you wrote it yet. */
export interface HandlerAction extends Reaching {
  name: string;
  /** its key in your handlers object */
  handler: string;
  method: 'GET' | 'POST';
  item: boolean;
}

/** A record of its own for an action, taken through the actions of its `path`: the record, and its URL. */
async function recordFor(
  records: Records,
  collection: string,
  action: Reaching,
): Promise<{ record: JsonObject; url: string }> {
  const made = await records.fresh(collection);
  const url = `${records.fixture(collection).path}/${String(made.id)}`;
  return { record: (await records.take(url, action.path ?? [])) ?? made, url };
}

/**
 * Calls a `set` action on a record of its own, brought into the action's `when` by the actions of its `path`: 200
 * with every field set (a datetime set to `now` is the time of the call, a date its day); then again: a 409 once the
 * record is outside the action's `when`, else 200. A record no actions bring into the `when` must get a 409.
 */
export async function checkSet(records: Records, collection: string, action: SetAction): Promise<void> {
  const { record, url: base } = await recordFor(records, collection, action);
  const url = `${base}/${action.name}`;
  const token = await tokens.administrator();
  const input = action.input ?? undefined;
  const before = Date.now();
  const first = await records.call('POST', url, token, input);
  if (!holds(record, action.when)) {
    assert.equal(first.status, 409, `${url} outside its when: ${JSON.stringify(first.body)}`);
    return;
  }
  assert.equal(first.status, 200, `${url}: ${JSON.stringify(first.body)}`);
  const done = first.body as JsonObject;
  for (const [field, value] of Object.entries(action.set)) {
    if (typeof value === 'object' && value !== null && 'now' in value) {
      const given = String(done[field]);
      // a date field takes the day of the call, in UTC
      const days = [before, Date.now()].map((t) => new Date(t).toISOString().slice(0, 10));
      const at = Date.parse(given);
      assert.ok(
        /^\d{4}-\d{2}-\d{2}$/.test(given)
          ? days.includes(given)
          : at >= before - 1000 && at <= Date.now() + 1000,
        `${field} is the time of the call: ${given}`,
      );
    } else assert.deepEqual(done[field], value, `${action.name} sets ${field}`);
  }
  const second = await records.call('POST', url, token, input);
  assert.equal(
    second.status,
    holds(done, action.when) ? 200 : 409,
    `${url} again: ${JSON.stringify(second.body)}`,
  );
}

/**
 * Calls an action your handler answers, as the administrator with a valid input, on a record of its own brought into
 * the action's `when` by the actions of its `path`: 501 while `written` is false (the stub restsmith made), and once
 * you wrote it, what your handler answers — never a 5xx. A record no actions bring into the `when` must get a 409.
 */
export async function checkHandler(
  records: Records,
  collection: string,
  action: HandlerAction,
  written: boolean,
): Promise<void> {
  const { record, url: base } = action.item
    ? await recordFor(records, collection, action)
    : { record: undefined, url: records.fixture(collection).path };
  const query = action.method === 'GET' && action.input !== null ? queryOf(action.input) : '';
  const body = action.method === 'POST' && action.input !== null ? action.input : undefined;
  const answer = await records.call(
    action.method,
    `${base}/${action.name}${query}`,
    await tokens.administrator(),
    body,
  );
  const detail = `${action.method} ${base}/${action.name}: ${JSON.stringify(answer.body)}`;
  if (record !== undefined && !holds(record, action.when))
    assert.equal(answer.status, 409, `${detail} outside its when`);
  else if (!written) assert.equal(answer.status, 501, detail);
  else assert.ok(answer.status < 500, `${detail} (expected your handler to answer, not fail)`);
}

/** An update or delete allowed only in some states, and how a record leaves them: a PATCH, or an action. */
export interface StateRule {
  operation: 'update' | 'delete';
  when: Record<string, Json[]>;
  /** a PATCH that takes the record out of the states, or the name of an action that does (and its input) */
  out: { patch: JsonObject } | { action: string; input?: JsonObject };
}

/**
 * A record taken out of the states its update or delete needs (by a PATCH or an action, as the administrator): the
 * write is a 409 problem, and the record is still there.
 */
export async function checkState(records: Records, collection: string, rule: StateRule): Promise<void> {
  const path = records.fixture(collection).path;
  let record = await records.fresh(collection);
  const token = await tokens.administrator();
  const url = `${path}/${String(record.id)}`;
  if (holds(record, rule.when)) {
    const out =
      'patch' in rule.out
        ? await records.call('PATCH', url, token, rule.out.patch)
        : await records.call('POST', `${url}/${rule.out.action}`, token, rule.out.input);
    if (out.status !== 200)
      throw new CannotCheck(`${url} could not be taken out of its states: ${JSON.stringify(out.body)}`);
    record = out.body as JsonObject;
  }
  assert.ok(!holds(record, rule.when), `${url} is out of the states ${JSON.stringify(rule.when)}`);
  const answer =
    rule.operation === 'update'
      ? await records.call('PATCH', url, token, {})
      : await records.call('DELETE', url, token);
  assert.equal(
    answer.status,
    409,
    `${rule.operation} of ${url} outside its states: ${JSON.stringify(answer.body)}`,
  );
  assert.equal((await records.call('GET', url, token)).status === 404, false, `${url} is still there`);
}
