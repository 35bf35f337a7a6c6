import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { generateFresh, ROOT, TSC7, WORK } from '../helpers/project.js';

const run = promisify(execFile);

/**
 * The tests restsmith writes into every project pass for every valid definition: varied definitions (page sizes
 * down to 1, prefixes, integer and uuid ids, owners, every field type and combinations of required, nullable,
 * default and unique, a random rule per operation and action, a to-many relation and a many-to-many one with rules
 * of their own) are generated, type-checked, and their own `npm test` (tsx --test) is run. Seeded
 * (FUZZ_SEED) and bounded: a few definitions per run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const DEFINITIONS = Number(process.env.FUZZ_DEFINITIONS ?? 4);

type FieldSpec = Record<string, unknown> & { type: string };

/** A field of `type` with options that fit it; `required` and `default` never together with readOnly. */
const field = (type: string): fc.Arbitrary<FieldSpec> => {
  const flags = fc.record({ required: fc.boolean(), nullable: fc.boolean(), unique: fc.boolean() });
  const typed: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    string: fc.oneof(
      fc.record({ minLength: fc.constantFrom(0, 1, 3), maxLength: fc.constantFrom(5, 40, 200) }),
      fc.constant({ format: 'email' }),
      fc.constant({ format: 'url' }),
      fc.constant({ pattern: '^[A-Z][a-z0-9]{2,6}$' }),
      fc.constant({ default: 'x' }),
    ),
    text: fc.oneof(fc.constant({}), fc.constant({ maxLength: 10 })),
    integer: fc.oneof(fc.constant({}), fc.constant({ min: -5, max: 5, default: 0 }), fc.constant({ min: 10 })),
    number: fc.oneof(fc.constant({}), fc.constant({ min: 0, max: 1, default: 0.5 })),
    boolean: fc.oneof(fc.constant({}), fc.constant({ default: true })),
    date: fc.constant({}),
    datetime: fc.constant({}),
    uuid: fc.constant({}),
    enum: fc.oneof(fc.constant({ values: ['a', 'b-c'] }), fc.constant({ values: ['one', 'two'], default: 'two' })),
    json: fc.constant({}),
  };
  return fc.tuple(flags, typed[type]!).map(([f, options]) => ({
    type,
    ...options,
    ...(f.required && { required: true }),
    ...(f.nullable && { nullable: true }),
    // unique on every type but json and boolean (two records would need two different values)
    ...(f.unique && !['json', 'boolean', 'enum'].includes(type) && { unique: true }),
  }));
};

type Rule = string | string[];
/** `rule`, with its `owner` term left out where there is no owner (`admin` if nothing is left) */
const ruleFor = (rule: Rule | undefined, owned: boolean): Rule => {
  const terms = (Array.isArray(rule) ? rule : [rule ?? 'admin']).filter((t) => owned || t !== 'owner');
  return terms.length === 0 ? 'admin' : terms.length === 1 ? (terms[0] ?? 'admin') : terms;
};

const TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'date', 'datetime', 'uuid', 'enum', 'json'];

const definition = fc
  .record({
    prefix: fc.constantFrom(undefined, '/api', '/v2/things'),
    max: fc.constantFrom(1, 2, 5, 99, 100, 500),
    id: fc.constantFrom('integer', 'uuid'),
    childId: fc.constantFrom('integer', 'uuid'),
    owned: fc.boolean(),
    partOwned: fc.boolean(),
    // parts read one by one, or only embedded, listed and through filters (their `read` rule still decides who)
    partRead: fc.boolean(),
    fields: fc.tuple(...TYPES.map(field)),
    onDelete: fc.constantFrom('restrict', 'cascade', 'setNull'),
    events: fc.boolean(),
    rules: fc.array(fc.constantFrom<Rule>('public', 'authenticated', 'member', 'admin', 'owner', ['member', 'owner']), {
      minLength: 14,
      maxLength: 14,
    }),
  })
  .map(({ prefix, max, id, childId, owned, partOwned, partRead, fields, onDelete, events, rules }) => ({
    name: 'generated',
    version: '1.0.0',
    ...(prefix !== undefined && { prefix }),
    auth: { adminRole: 'admin', roles: ['admin', 'member'] },
    limits: { pageSize: { max } },
    ...(events && { events: {} }),
    resources: {
      things: {
        id,
        ...(owned && { owner: 'ownerId' }),
        fields: {
          ...Object.fromEntries(fields.map((f, i) => [`f${TYPES[i]}`, f])),
          ...(owned && { ownerId: { type: 'string', readOnly: true } }),
          state: { type: 'enum', values: ['open', 'shut'], default: 'open', readOnly: true },
        },
        // a rule per operation and action; `owner` terms only where there is an owner
        access: Object.fromEntries(
          ['list', 'read', 'create', 'update', 'delete'].map((op, i) => [op, ruleFor(rules[i], owned)]),
        ),
        relations: { tags: { through: 'thing-tags' } },
        actions: {
          shut: { on: 'item', access: ruleFor(rules[5], owned), when: { state: ['open'] }, set: { state: 'shut' } },
          // a collection action has no record to own
          ping: { on: 'collection', access: ruleFor(rules[6], false) },
        },
      },
      // a to-many relation (things.parts, nested routes) with rules of its own
      parts: {
        id: childId,
        ...(partOwned && { owner: 'makerId' }),
        ...(!partRead && { operations: ['list', 'create', 'update', 'delete'] }),
        fields: {
          label: { type: 'string', required: true },
          thingId: {
            type: 'ref',
            to: 'things',
            required: onDelete !== 'setNull',
            nullable: onDelete === 'setNull',
            onDelete,
          },
          ...(partOwned && { makerId: { type: 'string', readOnly: true } }),
        },
        access: Object.fromEntries(
          ['list', 'read', 'create', 'update', 'delete'].map((op, i) => [op, ruleFor(rules[7 + i], partOwned)]),
        ),
      },
      // a many-to-many relation (things.tags through thing-tags: link routes) whose links have rules of their own
      tags: {
        fields: { name: { type: 'string', required: true, unique: true } },
        access: { list: 'public', read: ruleFor(rules[12], false), create: 'admin', update: 'admin', delete: 'admin' },
      },
      'thing-tags': {
        fields: {
          thingId: { type: 'ref', to: 'things', required: true, onDelete: 'cascade' },
          tagId: { type: 'ref', to: 'tags', required: true, onDelete: 'cascade' },
        },
        unique: [['thingId', 'tagId']],
        access: {
          list: 'public',
          read: ruleFor(rules[13], false),
          create: ruleFor(rules[11], false),
          update: 'admin',
          delete: ruleFor(rules[12], false),
        },
      },
    },
  }));

/** Generates `file`'s project, type-checks it, and runs its `npm test` (its own tests and the generated ones). */
async function ownTests(file: string, name: string): Promise<{ code: number; out: string }> {
  const dir = await generateFresh(file, name);
  await run(process.execPath, [TSC7, '-p', 'tsconfig.json', '--noUnusedLocals'], { cwd: dir });
  const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  return run(process.execPath, [tsx, 'test/generated/run.ts'], { cwd: dir }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
}

it('a project whose owners are records (refs) passes its own tests, nested creates under them included', async () => {
  const result = await ownTests(join(ROOT, 'test/e2e/fixtures/owned-by-ref.yaml'), 'generated-tests-owned-by-ref');
  expect(result.code, result.out.slice(-4000)).toBe(0);
  expect(result.out).toMatch(/ok \d+ - POST \/pets\/\{id\}\/appointments as owner: 403/);
}, 120_000);

it('a project whose records may be edited in some states only passes its own tests', async () => {
  const result = await ownTests(join(ROOT, 'test/e2e/fixtures/update-when.yaml'), 'generated-tests-update-when');
  expect(result.code, result.out.slice(-4000)).toBe(0);
  expect(result.out).toMatch(/ok \d+ - refuses a PATCH whose If-Match is not its ETag/);
  // reopen needs a job done: its record is taken through start and finish, and it sets the status
  expect(result.out).toMatch(/ok \d+ - reopen sets its fields, once/);
  // handler actions with a when: called in it (log-time after start) and refused outside it, before the handler
  expect(result.out).toMatch(/ok \d+ - log-time is a 501 until you write its handler/);
  expect(result.out).toMatch(/ok \d+ - dispute is a 501 until you write its handler/);
  // a datetime when written with an offset holds on the record as returned (UTC): 200 and 501, not 409
  expect(result.out).toMatch(/ok \d+ - hold sets its fields, once/);
  expect(result.out).toMatch(/ok \d+ - move is a 501 until you write its handler/);
  expect(result.out).toMatch(
    /ok \d+ - dispute as stranger: admitted, then your handler answers, or 409 outside its when/,
  );
  // jobs' states are set by actions only: every test runs, none is skipped
  expect(result.out).not.toMatch(/# SKIP/);
}, 120_000);

// about 25 s a definition on this machine's two cores (generate, type-check, its own tests)
it(
  'generated projects pass their own tests, whatever the valid definition',
  { timeout: 60_000 + DEFINITIONS * 45_000 },
  async () => {
    mkdirSync(WORK, { recursive: true });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(definition, async (spec) => {
        n += 1;
        const file = join(WORK, `generated-tests-${n}.json`);
        writeFileSync(file, JSON.stringify(spec, null, 2));
        // what the project's `npm test` runs: its own tests and the generated ones (CRUD, the access matrix, actions)
        const result = await ownTests(file, `generated-tests-${n}`);
        expect(result.code, `${JSON.stringify(spec)}\n${result.out.slice(-4000)}`).toBe(0);
      }),
      { seed: SEED, numRuns: DEFINITIONS, endOnFailure: true },
    );
    expect(n).toBeGreaterThanOrEqual(DEFINITIONS);
  },
);
