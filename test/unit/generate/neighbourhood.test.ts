import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { neighbourhood, neighbourhoodKey } from '../../../src/contract/neighbourhood.js';
import { resourceView } from '../../../src/generate/resource-view.js';
import { resourceParts } from '../../../src/openapi/document.js';
import { SchemaNames } from '../../../src/openapi/schemas.js';
import type { Api } from '../../../src/model.js';
import { definitionOf } from '../../../src/pipeline/read-definition.js';

const ROOT = join(import.meta.dirname, '../../..');

const yamlIn = (dir: string): string[] =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, f));

const DEFINITIONS = [
  ...yamlIn('examples'),
  ...yamlIn('test/e2e/fixtures'),
  ...yamlIn('test/golden'),
  'bench/definition.yaml',
  'bench/relations.yaml',
];

const load = (file: string, text = readFileSync(join(ROOT, file), 'utf8')): Api => definitionOf(file, text);

/**
 * A chain of resources, each with a ref to the one before it (`onDelete` as given), a many-to-many relation from the
 * first to the second through a join resource, a resource whose ref to the last one restricts its delete, and `include`
 * `depth` levels deep.
 */
function chain(count: number, onDelete: string, depth: number): string {
  const resources = Array.from({ length: count }, (_, i) => {
    const ref = i === 0 ? '' : `\n      prevId: { type: ref, to: c${i - 1}, nullable: true, onDelete: ${onDelete} }`;
    const partners = i === 0 ? '\n    relations:\n      partners: { through: links }' : '';
    return `  c${i}:\n    fields:\n      title: { type: string, required: true }${ref}${partners}`;
  });
  return [
    'name: chain',
    'version: 1.0.0',
    'auth: { default: public }',
    `limits: { includeDepth: ${depth} }`,
    'resources:',
    ...resources,
    '  links:',
    '    fields:',
    '      aId: { type: ref, to: c0, required: true, onDelete: cascade }',
    '      bId: { type: ref, to: c1, required: true, onDelete: cascade }',
    '  ends:',
    '    fields:',
    `      lastId: { type: ref, to: c${count - 1}, required: true, onDelete: restrict }`,
    '',
  ].join('\n');
}

/** An action's input names a resource no field or relation leads to (from review: its id type was lost). */
const FAR_INPUT = `name: far
version: 1.0.0
resources:
  posts:
    fields: { title: string }
    actions:
      pin: { on: collection, input: { fields: { farId: { type: ref, to: far } } } }
      find: { on: collection, method: get, input: { fields: { farId: { type: ref, to: far } } } }
  middle:
    fields: { name: string }
  far:
    id: integer
    fields: { name: string }
`;

/**
 * A resource's view and its part of the OpenAPI document made from its neighbourhood are the ones made from the whole
 * api: nothing they read is left out.
 */
describe('a view and an OpenAPI part made from the neighbourhood', () => {
  const apis: [string, Api][] = [
    ...DEFINITIONS.map((file): [string, Api] => [file, load(file)]),
    ['an action whose input refers to a resource far away, with integer ids', load('far.yaml', FAR_INPUT)],
    ...(['restrict', 'cascade', 'setNull'] as const).flatMap((onDelete) =>
      [1, 2, 3].map((depth): [string, Api] => [
        `a chain of 12, ${onDelete}, include depth ${depth}`,
        load('chain.yaml', chain(12, onDelete, depth)),
      ]),
    ),
  ];
  it.each(apis)('%s', (_, api) => {
    for (const resource of api.resources) {
      const near = neighbourhood(api, resource);
      expect(resourceView(near, resource), resource.name).toEqual(resourceView(api, resource));
      // names of their own each: what a run computes once for a pair of names and resource is computed again here
      expect(resourceParts(near, resource, new SchemaNames(api)), resource.name).toEqual(
        resourceParts(api, resource, new SchemaNames(api)),
      );
    }
  });
});

/** Given a chain, want the resources kept for one of them. */
describe('neighbourhood', () => {
  const kept = (api: Api, name: string): string[] => {
    const resource = api.resources.find((r) => r.name === name);
    if (resource === undefined) throw new Error(`no ${name}`);
    return neighbourhood(api, resource).resources.map((r) => r.name);
  };
  it.each<[string, string, number, string, string[]]>([
    ['include depth 1: three steps either way', 'setNull', 1, 'c6', ['c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']],
    ['include depth 2: four steps', 'setNull', 2, 'c6', ['c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10']],
    [
      'a cascade reaches every record deleted with it, and who refers to them',
      'cascade',
      1,
      'c6',
      ['c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10', 'c11', 'ends'],
    ],
    ['a join resource is a step away from both sides', 'setNull', 1, 'c0', ['c0', 'c1', 'c2', 'c3', 'links']],
  ])('%s', (_, onDelete, depth, name, want) => {
    expect(kept(load('chain.yaml', chain(12, onDelete, depth)), name)).toEqual(want);
  });

  it('keeps every setting of the api', () => {
    const api = load('examples/blog.yaml');
    const { resources: _all, ...settings } = api;
    const first = api.resources[0];
    if (first === undefined) throw new Error('no resource');
    const { resources, ...kept } = neighbourhood(api, first);
    expect(kept).toEqual(settings);
    expect(resources).toContain(first);
  });
});

/** Given an edit of a chain, want whether a resource's key changes: exactly when its neighbourhood does. */
describe('neighbourhoodKey', () => {
  const keyOf = (text: string, name: string): string => {
    const api = load('chain.yaml', text);
    const resource = api.resources.find((r) => r.name === name);
    if (resource === undefined) throw new Error(`no ${name}`);
    return neighbourhoodKey(api, resource);
  };
  const base = chain(12, 'setNull', 1);
  it.each<[string, string, boolean]>([
    ['the same text, read again', base, false],
    [
      'a field added three steps away',
      base.replace('  c3:\n    fields:', '  c3:\n    fields:\n      note: text'),
      true,
    ],
    [
      'a field added four steps away',
      base.replace('  c2:\n    fields:', '  c2:\n    fields:\n      note: text'),
      false,
    ],
    ['a setting', base.replace('includeDepth: 1', 'includeDepth: 1, pageSize: { default: 10 }'), true],
  ])('%s', (_, edited, changes) => {
    expect(keyOf(edited, 'c6') !== keyOf(base, 'c6')).toBe(changes);
  });

  it('is refused for a resource of another api', () => {
    const api = load('chain.yaml', base);
    const other = load('chain.yaml', chain(3, 'setNull', 1)).resources[2];
    if (other === undefined) throw new Error('no c2');
    expect(() => neighbourhoodKey(api, { ...other, name: 'elsewhere' })).toThrow(/not a resource of this api/);
  });
});

/** A lookup outside the neighbourhood fails loudly, where it would have gone on as if there were no such resource. */
describe('the resources of a neighbourhood', () => {
  const api = load('chain.yaml', chain(12, 'setNull', 1));
  const [first] = api.resources;
  if (first === undefined) throw new Error('no c0');
  const near = neighbourhood(api, first);

  it('find what is in it, and nothing where the whole api has nothing', () => {
    expect(near.resources.find((r) => r.name === 'c2')?.name).toBe('c2');
    expect(near.resources.find((r) => r.name === 'nowhere')).toBeUndefined();
  });

  it('refuse to miss one of the whole api', () => {
    expect(() => near.resources.find((r) => r.name === 'c9')).toThrow(/c9 was read outside the neighbourhood/);
  });
});
