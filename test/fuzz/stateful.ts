import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { Oracle } from './oracle.js';
import { describeExchange, send, type FuzzRequest, type FuzzResponse } from './requests.js';
import { valid, type Json, type Schema } from './schema-arbitrary.js';

/** One collection of the document with the operations the round trip needs. */
export interface Collection {
  path: string;
  input: Schema;
  patch?: Schema;
  output: Schema;
  /** field → collection path it refers to */
  refs: Record<string, string>;
  /** field → the default the create schema gives it: what a PATCH null brings it back to */
  defaults: Record<string, Json>;
  hasRead: boolean;
  hasPut: boolean;
  hasDelete: boolean;
  actions: string[];
}

export class Client {
  /** the id of one record per collection path, for refs and for the fuzzer's paths */
  readonly parents = new Map<string, string | number>();

  constructor(
    readonly base: string,
    private readonly authorization: string,
  ) {}

  async call(method: string, url: string, body?: Json): Promise<{ request: FuzzRequest; response: FuzzResponse }> {
    const request: FuzzRequest = { method, url, headers: { authorization: this.authorization } };
    if (body !== undefined) {
      request.body = JSON.stringify(body);
      request.headers['content-type'] = 'application/json';
    }
    return { request, response: await send(this.base, request) };
  }

  /** `body` with its ref fields pointing at the parents. */
  withRefs(collection: Collection, body: Record<string, Json>): Record<string, Json> {
    const refs = Object.entries(collection.refs).map(([field, to]) => [field, this.parents.get(to) ?? null]);
    return { ...body, ...Object.fromEntries(refs) };
  }

  /** Creates one valid record of `collection` (for refs and paths), trying seeded samples until one is taken. */
  async seed(collection: Collection, seed: number): Promise<void> {
    for (const sample of fc.sample(valid(collection.input), { seed, numRuns: 30 })) {
      const { response } = await this.call(
        'POST',
        collection.path,
        this.withRefs(collection, sample as Record<string, Json>),
      );
      if (response.status === 201) {
        this.parents.set(collection.path, (response.json as { id: string | number }).id);
        return;
      }
    }
    throw new Error(`could not create a record in ${collection.path}`);
  }

  /** Creates again the records of `collections` that a DELETE (or its cascade) removed, parents first. */
  async heal(collections: readonly Collection[], seed: number): Promise<void> {
    for (const collection of collections) {
      const id = this.parents.get(collection.path);
      const { response } = await this.call('GET', `${collection.path}/${id}`);
      if (response.status === 404) await this.seed(collection, seed);
    }
  }
}

function fail(message: string, exchange: { request: FuzzRequest; response: FuzzResponse }): never {
  throw new Error(`${message}\n${describeExchange(exchange.request, exchange.response)}`);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a body holds a string that is not well-formed UTF-16 (a lone surrogate), which a server may refuse. */
function illFormed(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || illFormed(v));
}

/** The statuses a write may answer besides success: 409 for a unique value taken, 400 for a lone surrogate. */
const refusals = (body: unknown): number[] => (illFormed(body) ? [409, 400] : [409]);

function expectStatus(exchange: { request: FuzzRequest; response: FuzzResponse }, ...statuses: number[]): void {
  if (!statuses.includes(exchange.response.status)) fail(`expected ${statuses.join(' or ')}`, exchange);
}

/** Whether a returned value is what was written (datetimes compare as instants). */
function same(schema: Schema | undefined, written: Json, read: unknown): boolean {
  if (schema?.format === 'date-time' && typeof written === 'string' && typeof read === 'string') {
    return Date.parse(written) === Date.parse(read);
  }
  return isDeepStrictEqual(JSON.parse(JSON.stringify(written)), read);
}

/** RFC 7396: what a JSON Merge Patch `patch` makes of `target`. */
function mergePatch(target: unknown, patch: Json): Json {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, Json> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, Json>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * What a PATCH of `changes` should leave in `before`'s fields: `json` fields (no type) are merged, others replaced;
 * null removes a value, which brings a field with a default back to it (the generated README and docs/definition.md).
 */
function patched(collection: Collection, before: Record<string, unknown>, changes: Record<string, Json>) {
  const untyped = (field: string) => collection.output.properties?.[field]?.type === undefined;
  const after = (field: string, value: Json): Json => {
    if (value === null && collection.defaults[field] !== undefined) return collection.defaults[field];
    return untyped(field) ? mergePatch(before[field], value) : value;
  };
  return Object.fromEntries(Object.entries(changes).map(([field, value]) => [field, after(field, value)]));
}

/** Reads the record back, checks every written field the output has, and returns it. */
async function readBack(
  client: Client,
  collection: Collection,
  url: string,
  written: Record<string, Json>,
  step: string,
): Promise<Record<string, unknown>> {
  const exchange = await client.call('GET', url);
  expectStatus(exchange, 200);
  const record = exchange.response.json as Record<string, unknown>;
  for (const [field, value] of Object.entries(written)) {
    const schema = collection.output.properties?.[field];
    if (schema === undefined) continue; // write-only
    if (!same(schema, value, record[field])) {
      fail(
        `after ${step}, ${field} reads back ${JSON.stringify(record[field])}, not ${JSON.stringify(value)}`,
        exchange,
      );
    }
  }
  return record;
}

/** Create → read → patch → put → actions → delete, each read back; a unique value already taken skips the rest. */
export function roundTrip(client: Client, oracle: Oracle, collection: Collection) {
  const patch = collection.patch === undefined ? fc.constant({}) : valid(collection.patch, true);
  return fc.asyncProperty(valid(collection.input), valid(collection.input), patch, async (c, p, m) => {
    const created = client.withRefs(collection, c as Record<string, Json>);
    const post = await client.call('POST', collection.path, created);
    expectStatus(post, 201, ...refusals(created));
    if (post.response.status !== 201) return; // nothing was created
    const id = (post.response.json as { id: string | number }).id;
    const url = `${collection.path}/${id}`;
    const before = await readBack(client, collection, url, created, 'create');
    if (collection.patch !== undefined) {
      const changes = m as Record<string, Json>;
      const patch = await client.call('PATCH', url, changes);
      expectStatus(patch, 200, ...refusals(changes));
      if (patch.response.status === 200)
        await readBack(client, collection, url, patched(collection, before, changes), 'patch');
    }
    if (collection.hasPut) {
      const replaced = client.withRefs(collection, p as Record<string, Json>);
      const put = await client.call('PUT', url, replaced);
      expectStatus(put, 200, ...refusals(replaced));
      if (put.response.status === 200) await readBack(client, collection, url, replaced, 'put');
    }
    for (const action of collection.actions) {
      const acted = await client.call('POST', `${url}/${action}`);
      expectStatus(acted, 200, 409);
      if (acted.response.status === 200) {
        const errors = oracle.validate(
          oracle.operations.find((o) => o.method === 'POST' && o.path === `${collection.path}/{id}/${action}`)!,
          200,
          'application/json',
          acted.response.json,
        );
        if (errors.length > 0) fail(`action answer: ${errors.join('; ')}`, acted);
        const now = acted.response.json as Record<string, Json>;
        await readBack(client, collection, url, now, action);
      }
    }
    if (collection.hasDelete) {
      expectStatus(await client.call('DELETE', url), 204);
      if (collection.hasRead) expectStatus(await client.call('GET', url), 404);
    }
  });
}
