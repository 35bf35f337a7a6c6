import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectAnotherRun } from '../../../src/memo.js';
import { UserError } from '../../../src/errors.js';
import { resourceView } from '../../../src/generate/resource-view.js';
import { resourceViews } from '../../../src/generate/view-memo.js';
import { openApiDocument, resourceParts } from '../../../src/openapi/document.js';
import { SchemaNames } from '../../../src/openapi/schemas.js';
import type { Api } from '../../../src/model.js';
import { definitionOf } from '../../../src/pipeline/read-definition.js';

// as under `generate --watch`: what a run makes is kept for the next
beforeAll(expectAnotherRun);

type Paths = Record<string, Record<string, object> | undefined>;

/** A definition as plain data: JSON is YAML, so it is read as a file would be. */
interface Definition {
  includeDepth: number;
  resources: Record<
    string,
    { id?: string; fields: Record<string, object>; access?: object; relations?: object; actions?: object }
  >;
}

const ON_DELETE = ['restrict', 'cascade', 'setNull'] as const;

interface Ref {
  from: number;
  to: number;
  onDelete: (typeof ON_DELETE)[number];
}

/**
 * Up to eight resources, each with a title, some with integer ids, refs between them (to itself too) each with its
 * own inverse, and actions whose input refers to a resource.
 */
const definitions = fc
  .record({
    count: fc.integer({ min: 2, max: 8 }),
    includeDepth: fc.integer({ min: 1, max: 3 }),
    refs: fc.array(fc.record({ from: fc.nat(7), to: fc.nat(7), onDelete: fc.constantFrom(...ON_DELETE) }), {
      maxLength: 12,
    }),
    join: fc.boolean(),
    integerIds: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    inputs: fc.array(fc.record({ from: fc.nat(7), to: fc.nat(7) }), { maxLength: 3 }),
  })
  .map(({ count, includeDepth, refs, join, integerIds, inputs }): Definition => {
    const resources: Definition['resources'] = {};
    for (let i = 0; i < count; i++) {
      resources[`s${i}`] = {
        ...(integerIds[i] === true && { id: 'integer' }),
        fields: { title: { type: 'string', required: true } },
      };
    }
    inputs
      .filter((input) => input.from < count && input.to < count)
      .forEach((input, n) => {
        const resource = resources[`s${input.from}`];
        if (resource === undefined) return;
        const field = { type: 'ref', to: `s${input.to}` };
        resource.actions = {
          ...resource.actions,
          [`act${n}`]: { on: 'collection', input: { fields: { otherId: field } } },
          [`look${n}`]: { on: 'collection', method: 'get', input: { fields: { otherId: field } } },
        };
      });
    refs
      .filter((ref) => ref.from < count && ref.to < count)
      .forEach((ref: Ref, n) => {
        const fields = resources[`s${ref.from}`]?.fields ?? {};
        fields[`ref${n}Id`] = {
          type: 'ref',
          to: `s${ref.to}`,
          onDelete: ref.onDelete,
          nullable: ref.onDelete === 'setNull',
          as: `ref${n}`,
          inverse: `back${n}`,
        };
      });
    if (join) {
      resources['pairs'] = {
        fields: {
          leftId: { type: 'ref', to: 's0', required: true, onDelete: 'cascade' },
          rightId: { type: 'ref', to: 's1', required: true, onDelete: 'cascade' },
        },
      };
      const first = resources['s0'];
      if (first !== undefined) first.relations = { partners: { through: 'pairs' } };
    }
    return { includeDepth, resources };
  });

/** An edit a user makes between two saves. */
type Edit =
  | { kind: 'field'; resource: number; name: string }
  | { kind: 'onDelete'; resource: number }
  | { kind: 'depth'; depth: number }
  | { kind: 'public'; resource: number };

const edits = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('field' as const), resource: fc.nat(7), name: fc.constantFrom('note', 'size') }),
    fc.record({ kind: fc.constant('onDelete' as const), resource: fc.nat(7) }),
    fc.record({ kind: fc.constant('depth' as const), depth: fc.integer({ min: 1, max: 3 }) }),
    fc.record({ kind: fc.constant('public' as const), resource: fc.nat(7) }),
  ),
  { minLength: 1, maxLength: 4 },
);

function edited(definition: Definition, edit: Edit): Definition {
  const next = structuredClone(definition);
  const names = Object.keys(next.resources);
  const target = 'resource' in edit ? next.resources[names[edit.resource % names.length] ?? ''] : undefined;
  if (edit.kind === 'depth') next.includeDepth = edit.depth;
  else if (target === undefined) return next;
  else if (edit.kind === 'field') target.fields[edit.name] = { type: 'string', maxLength: 50 };
  else if (edit.kind === 'public') target.access = { read: 'public', list: 'public' };
  else {
    // the first ref a cascade, or back
    const ref = Object.values(target.fields).find((f) => 'to' in f) as
      { onDelete: string; nullable: boolean } | undefined;
    if (ref !== undefined) {
      ref.onDelete = ref.onDelete === 'cascade' ? 'setNull' : 'cascade';
      ref.nullable = ref.onDelete === 'setNull';
    }
  }
  return next;
}

/** The api of a definition, or undefined where restsmith refuses it (two refs making a cycle it does not take…). */
function apiOf({ includeDepth, resources }: Definition): Api | undefined {
  const text = JSON.stringify({ name: 'prop', version: '1.0.0', limits: { includeDepth }, resources });
  try {
    return definitionOf('prop.json', text);
  } catch (error) {
    if (error instanceof UserError) return undefined;
    throw error;
  }
}

/**
 * Whatever a run remembered, each view of the next run, and each resource's part of its OpenAPI document, is the one
 * made afresh from the whole api: on random
 * definitions and random edits between saves, in one process as under --watch.
 */
describe('views and OpenAPI parts remembered across saves', () => {
  it('are the ones made afresh from the whole api', () => {
    let checked = 0;
    fc.assert(
      fc.property(definitions, edits, (definition, steps) => {
        let current = definition;
        for (const step of [undefined, ...steps]) {
          if (step !== undefined) current = edited(current, step);
          const api = apiOf(current);
          if (api === undefined) return;
          const views = resourceViews(api, new Map());
          api.resources.forEach((r, i) => expect(views[i]).toEqual(resourceView(api, r)));
          // and the document has each resource's operations and schemas as made afresh from the whole api
          const document = openApiDocument(api) as { paths: Paths; components: { schemas: Record<string, object> } };
          const names = new SchemaNames(api);
          for (const r of api.resources) {
            const { routes, schemas } = resourceParts(api, r, names);
            for (const [path, method, operation] of routes) expect(document.paths[path]?.[method]).toEqual(operation);
            for (const [name, schema] of schemas) expect(document.components.schemas[name]).toEqual(schema);
          }
          checked += 1;
        }
      }),
      { numRuns: 60 },
    );
    // most definitions are ones restsmith takes: the property was not vacuous
    expect(checked).toBeGreaterThan(60);
  });
});
