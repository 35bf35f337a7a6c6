import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listables, relationFilterFields } from '../../src/contract/listing.js';
import type { Api, Resource } from '../../src/model.js';
import { openApiDocument } from '../../src/openapi/document.js';
import { readDefinition } from '../../src/pipeline/read-definition.js';
import { ROOT } from '../helpers/project.js';

type Node = Record<string, unknown>;
type Document = {
  paths: Record<string, Record<string, { parameters?: Node[]; responses: Record<string, Node> }>>;
  components: { parameters: Record<string, Node>; schemas: Record<string, Node> };
};

/**
 * The size of the document grows with the fields, not with fields × operators × listings (issue 56: 157 query
 * parameters on one listing, 780 KB for 8 resources). The coworking fixture (8 resources, 65 fields, to-one and
 * to-many relations, nested listings) printed 1,045,575 bytes with a parameter an operator; 344,776 with one
 * deepObject parameter a field, named once in components (0.33).
 */
const DEFINITIONS = [
  'test/e2e/fixtures/coworking.yaml',
  'examples/blog.yaml',
  'examples/tasks.yaml',
  'examples/library.yaml',
  'examples/clinic.yaml',
];

/** The filters a listing of `r` takes: its own fields, and those of its relations' targets. */
const filterable = (api: Api, r: Resource): number =>
  listables(api, r).length + relationFilterFields(api, r).reduce((n, { fields }) => n + fields.length, 0);

/** Every object of `value` that is a parameter (has `in`), not a reference to one. */
function* parameters(value: unknown): Generator<Node> {
  if (value === null || typeof value !== 'object') return;
  const node = value as Node;
  if (typeof node.in === 'string' && typeof node.name === 'string') yield node;
  for (const child of Object.values(node)) yield* parameters(child);
}

describe.each(DEFINITIONS)('the size of the OpenAPI document of %s', (file) => {
  const load = async () => {
    const api = await readDefinition(join(ROOT, file));
    return { api, document: openApiDocument(api) as unknown as Document };
  };

  it('gives a listing one parameter a filterable field (and paging, sort, include), each a reference', async () => {
    const { api, document } = await load();
    let listings = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      const page = (item.get?.responses['200'] as { content?: Record<string, { schema: Node }> } | undefined)?.content;
      const ref = String(page?.['application/json']?.schema.$ref ?? '');
      const r = api.resources.find((x) => ref === `#/components/schemas/${x.typeName}Page`);
      if (r === undefined) continue;
      listings += 1;
      const given = item.get?.parameters ?? [];
      // limit, cursor, sort, include and the `{id}` of a nested listing
      expect(given.length, path).toBeLessThanOrEqual(filterable(api, r) + 5);
      for (const parameter of given) expect(Object.keys(parameter), path).toEqual(['$ref']);
    }
    expect(listings).toBeGreaterThan(0);
  });

  it('holds as many parameter objects as the resources have filterable fields, plus a few shared ones', async () => {
    const { api, document } = await load();
    const listed = api.resources.filter((r) => r.operations.includes('list'));
    const bound = listed.reduce((n, r) => n + filterable(api, r) + 2, 0);
    // the shared headers and ids, each read's include and link's ids, each read-only action's input, the feed's and
    // the webhooks' own
    const shared = 8 + (api.events === undefined ? 0 : 24);
    const others = api.resources.reduce((n, r) => n + 2 + r.actions.reduce((m, a) => m + a.input.length, 0), shared);
    expect([...parameters(document)].length).toBeLessThanOrEqual(bound + others);
    // each filter is named once and every listing of the records refers to it
    const filters = Object.values(document.components.parameters).filter((p) => p.style === 'deepObject');
    expect(filters.length).toBe(listed.reduce((n, r) => n + filterable(api, r), 0));
  });
});

describe('the coworking fixture', () => {
  it('prints at most a third of the 1,045,575 bytes it printed with a parameter an operator', async () => {
    const api = await readDefinition(join(ROOT, 'test/e2e/fixtures/coworking.yaml'));
    // what `restsmith openapi` prints
    const document = openApiDocument(api) as { paths: Record<string, unknown> };
    const printed = `${JSON.stringify(document, null, 2)}\n`;
    // and the routes added since, of the same size in every document (/livez, /readyz: SPEC §11)
    const since = ['/livez', '/readyz'].map((path) => JSON.stringify({ [path]: document.paths[path] }, null, 6).length);
    expect(printed.length).toBeLessThanOrEqual(1_045_575 / 3 + since.reduce((a, b) => a + b, 0));
  });
});
