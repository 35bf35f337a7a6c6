import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { ROOT, type RunningServer, serveGenerated } from '../helpers/project.js';
import { SECRET, token, unsignedToken } from '../helpers/tokens.js';
import { eventNames, feedRequests, readStream, streamWrong } from './events.js';
import { Oracle } from './oracle.js';
import { PROPERTIES } from './properties.js';
import { describeExchange, requestTo, RUNS, SEED, send, type Callers } from './requests.js';
import type { Json } from './schema-arbitrary.js';
import { Client, roundTrip, type Collection } from './stateful.js';

/**
 * The fuzzer: for each example, requests derived from its OpenAPI document (valid ones, and ones with wrong
 * types, missing and extra fields, extreme numbers, odd unicode, `__proto__` keys, deep JSON, odd query strings,
 * headers and ids), sent by an administrator, by the other roles, with no token and with forged ones, to a
 * generated server. Seeded (FUZZ_SEED) and bounded (FUZZ_RUNS); a failure prints the shrunk request and the answer.
 */
interface Definition {
  prefix?: string;
  auth?: { adminRole?: string; roles?: string[] };
  resources: Record<string, { fields?: Record<string, string | { type: string; to?: string }> }>;
}

/** Paths are the document's: relative to its server, which carries the definition's prefix. */
function collectionsOf(oracle: Oracle, definition: Definition): Collection[] {
  const prefix = '';
  const ops = oracle.operations.filter((o) => o.documented);
  const find = (method: string, path: string) => ops.find((o) => o.method === method && o.path === path);
  const result: Collection[] = [];
  for (const [name, resource] of Object.entries(definition.resources)) {
    const path = `${prefix}/${name}`;
    const create = find('POST', path);
    const read = find('GET', `${path}/{id}`);
    if (create?.body === undefined || read === undefined) continue;
    const refs: Record<string, string> = {};
    for (const [field, spec] of Object.entries(resource.fields ?? {})) {
      if (typeof spec === 'object' && spec.type === 'ref' && spec.to !== undefined)
        refs[field] = `${prefix}/${spec.to}`;
    }
    const patch = find('PATCH', `${path}/{id}`)?.body?.schema;
    const properties = oracle.resolve(create.body.schema).properties ?? {};
    // the document says a default as `x-default` (client generators make a field with `default` required)
    const defaults = Object.fromEntries(
      Object.entries(properties).flatMap(([field, schema]) => {
        const given = schema as { default?: Json; 'x-default'?: Json };
        const value = given['x-default'] ?? given.default;
        return value === undefined ? [] : [[field, value]];
      }),
    );
    result.push({
      path,
      input: create.body.schema,
      defaults,
      ...(patch !== undefined && { patch: oracle.resolve(patch) }),
      output: oracle.resolve(read.responses['200']!.content!['application/json']!.schema),
      refs,
      hasRead: true,
      hasPut: find('PUT', `${path}/{id}`) !== undefined,
      hasDelete: find('DELETE', `${path}/{id}`) !== undefined,
      // item actions that set fields: POST /{c}/{id}/{action} answering 200 with the record (a GET there is a nested
      // listing, a POST answering 201 a nested create, one that may answer 501 your handler's, whatever it answers)
      actions: ops
        .filter(
          (o) =>
            o.method === 'POST' &&
            o.path.startsWith(`${path}/{id}/`) &&
            !('201' in o.responses) &&
            !('501' in o.responses),
        )
        .map((o) => o.path.split('/').pop()!),
    });
  }
  return result;
}

/** What the tests read of a document themselves. */
interface FuzzDocument {
  servers: { url: string }[];
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
}

const hasEvents = (example: string): boolean =>
  'events' in (parse(readFileSync(join(ROOT, 'examples', `${example}.yaml`), 'utf8')) as object);

/** The newest event's seq, as the administrator's feed says. */
async function newestSeq(base: string, admin: string | undefined): Promise<number> {
  let newest = 0;
  let cursor: string | null = '0';
  for (let page = 0; cursor !== null && page < 100; page += 1) {
    const response = await fetch(`${base}/events?after=${cursor}&limit=200`, {
      headers: admin === undefined ? {} : { authorization: admin },
    });
    const body = (await response.json()) as { items: { seq: number }[]; nextCursor: string | null };
    newest = Math.max(newest, ...body.items.map((event) => event.seq));
    cursor = body.nextCursor;
  }
  return newest;
}

for (const example of ['blog', 'tasks']) {
  describe(`fuzzing the ${example} example`, () => {
    let server: RunningServer;
    let oracle: Oracle;
    let client: Client;
    /** the server's URL and the document's server path: what every path of the document is relative to */
    let apiBase: string;
    let collections: Collection[];
    let document: FuzzDocument;
    const callers: Callers = {};

    beforeAll(async () => {
      const definitionFile = join(ROOT, 'examples', `${example}.yaml`);
      const definition = parse(readFileSync(definitionFile, 'utf8')) as Definition;
      const environment = { DATABASE_URL: await databaseUrl(`fuzz-${example}`, 'sqlite::memory:'), JWT_SECRET: SECRET };
      const health = `${definition.prefix ?? ''}/healthz`;
      const generated = await serveGenerated(definitionFile, `fuzz-${example}`, environment, health);
      server = generated.server;
      oracle = new Oracle(JSON.parse(readFileSync(join(generated.dir, 'src/openapi.json'), 'utf8')));
      const admin = definition.auth?.adminRole ?? 'admin';
      callers.admin = `Bearer ${await token('fuzz-admin', { roles: [admin] })}`;
      for (const role of definition.auth?.roles ?? []) {
        if (role !== admin) callers[role] = `Bearer ${await token(`fuzz-${role}`, { roles: [role] })}`;
      }
      callers['no token'] = undefined;
      callers['no roles'] = `Bearer ${await token('fuzz-nobody')}`;
      callers.unsigned = `Bearer ${unsignedToken('fuzz-admin', [admin])}`;
      callers.expired = `Bearer ${await token('fuzz-admin', { roles: [admin], expires: 1 })}`;
      callers.garbage = 'Bearer \u00e9t\u00e9.x.y';
      callers.basic = 'Basic YWRtaW46YWRtaW4=';
      // the document's paths are relative to its one server, `{origin}` and the prefix
      document = JSON.parse(readFileSync(join(generated.dir, 'src/openapi.json'), 'utf8')) as FuzzDocument;
      apiBase = (document.servers[0]?.url ?? '').replace('{origin}', server.url);
      client = new Client(apiBase, callers.admin);
      collections = collectionsOf(oracle, definition);
      // one record per collection, parents first (the definitions list them in that order)
      for (const collection of collections) await client.seed(collection, SEED);
    });

    afterAll(async () => {
      await server?.stop();
    });

    for (const [name, property] of Object.entries(PROPERTIES)) {
      it(name, async () => {
        const ids = (path: string) => {
          const id = client.parents.get(path);
          return id === undefined ? [] : [id];
        };
        const byName = new Map(oracle.operations.map((o) => [`${o.method} ${o.path}`, o]));
        // the counterexample fast-check prints: the operation's name and the request
        const exchanges = fc.oneof(
          ...[...byName].map(([name, o]) => ({
            // the methods the document does not list for a path are sent too, less often
            weight: o.documented ? 4 : 1,
            arbitrary: requestTo(oracle, o, callers, ids).map((request) => ({ name, request })),
          })),
        );
        await fc.assert(
          fc.asyncProperty(exchanges, async ({ name, request }) => {
            const operation = byName.get(name)!;
            const response = await send(apiBase, request);
            // the records the fuzzer's paths name live on
            if (request.method === 'DELETE' && response.status === 204) await client.heal(collections, SEED);
            const wrong = property(oracle, operation, response, request);
            if (wrong !== undefined) throw new Error(`${wrong}\n${describeExchange(request, response)}`);
          }),
          { seed: SEED, numRuns: RUNS },
        );
      });
    }

    it("sends each listing's filters by operator, as its deepObject parameters spell them, and bare equality", () => {
      for (const collection of collections) {
        const listing = oracle.operations.find((o) => o.documented && o.method === 'GET' && o.path === collection.path);
        const names = (listing?.parameters ?? []).map((p) => p.name);
        // every listing filters on its ids and timestamps
        expect(names, collection.path).toEqual(
          expect.arrayContaining(['limit', 'cursor', 'sort', 'id', 'id[eq]', 'id[in]', 'createdAt[gte]']),
        );
        for (const p of listing?.parameters ?? [])
          expect(p.schema, `${collection.path} ${p.name}`).not.toHaveProperty('$ref');
      }
    });

    it('reads back what create, patch, put and the actions wrote, and nothing after delete', async () => {
      for (const collection of collections) {
        await fc.assert(roundTrip(client, oracle, collection), { seed: SEED, numRuns: Math.ceil(RUNS / 10) });
      }
    });

    // the examples with a change feed: its readers' requests, answered with events (after the writes above)
    if (hasEvents(example)) {
      it('answers a reader of GET /events with events as the document describes them, from every caller', async () => {
        const names = eventNames(document)!;
        const newest = await newestSeq(apiBase, callers.admin);
        const statuses = new Map<number, number>();
        let events = 0;
        const byName = oracle.operations.find((o) => o.method === 'GET' && o.path === '/events')!;
        await fc.assert(
          fc.asyncProperty(feedRequests(names, newest, callers), async (request) => {
            const response = await send(apiBase, request);
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            if (response.status === 200) events += (response.json as { items: unknown[] }).items.length;
            for (const property of Object.values(PROPERTIES)) {
              const wrong = property(oracle, byName, response, request);
              if (wrong !== undefined) throw new Error(`${wrong}\n${describeExchange(request, response)}`);
            }
          }),
          { seed: SEED, numRuns: Math.ceil(RUNS / 10) },
        );
        // the requests reached the feed: most answered with events, not refused
        expect(events, JSON.stringify([...statuses])).toBeGreaterThan(0);
        expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(RUNS / 40);
      });

      it('answers GET /events/stream from every caller as the document says, without hanging', async () => {
        const documented = Object.keys(document.paths['/events/stream']!.get!.responses);
        let streamed = 0;
        for (const [caller, authorization] of Object.entries(callers)) {
          for (const resumed of [undefined, '1', 'x']) {
            const headers: Record<string, string> = resumed === undefined ? {} : { 'last-event-id': resumed };
            const all = authorization === undefined ? headers : { ...headers, authorization };
            const answer = await readStream(`${apiBase}/events/stream?after=0`, all);
            const wrong = streamWrong(oracle, answer, documented);
            if (wrong !== undefined) throw new Error(`${caller} ${JSON.stringify(headers)}: ${wrong}`);
            streamed += answer.events.length;
          }
        }
        expect(streamed).toBeGreaterThan(0);
      });
    }
  });
}
