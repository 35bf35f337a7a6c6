import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Api } from '../../src/model.js';
import { openApiDocument } from '../../src/openapi/document.js';
import { readDefinition } from '../../src/pipeline/read-definition.js';
import { ROOT } from '../helpers/project.js';
import { field, resource } from '../helpers/model.js';

// ajv-formats' CommonJS default export, as NodeNext types it
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Node = Record<string, unknown>;
type Document = {
  paths: Record<string, Record<string, Node>>;
  components: { schemas: Record<string, Node>; parameters: Record<string, Node> };
};

const DEFINITIONS = [
  'examples/blog.yaml',
  'examples/tasks.yaml',
  'examples/library.yaml',
  'test/e2e/fixtures/values.yaml',
  'test/e2e/fixtures/shop.yaml',
  'test/e2e/fixtures/hostile.yaml',
];

/** Every object in `value`, with the JSON path to it. */
function* walk(value: unknown, path = ''): Generator<[string, Node]> {
  if (value === null || typeof value !== 'object') return;
  if (!Array.isArray(value)) yield [path, value as Node];
  for (const [key, child] of Object.entries(value)) yield* walk(child, `${path}/${key}`);
}

const api = (name: string, resources: Api['resources']): Api => ({
  name,
  version: '1.0.0',
  prefix: '',
  problemsBase: '/problems',
  auth: { default: [{ kind: 'authenticated' }], adminRole: 'admin', roles: ['admin'] },
  limits: {
    pageSize: { default: 20, max: 100 },
    bodySize: 1024,
    rateLimit: { max: 0, windowMs: 60_000 },
    includeDepth: 2,
    include: { maxRecords: 1000 },
  },
  resources,
});

describe.each(DEFINITIONS)('the OpenAPI document of %s', (file) => {
  const load = async () => openApiDocument(await readDefinition(join(ROOT, file))) as unknown as Document;

  it('has a request example for every body, valid against its schema', async () => {
    const document = await load();
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'doc' });
    let bodies = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const content = (operation.requestBody as { content?: Record<string, { schema: Node; example?: unknown }> })
          ?.content;
        for (const [media, { schema, example }] of Object.entries(content ?? {})) {
          bodies += 1;
          expect(example, `${method} ${path} ${media}`).toBeDefined();
          const validate = ajv.compile({ $ref: `doc#${String(schema.$ref).slice(1)}` });
          expect(validate(example) ? [] : validate.errors, `${method} ${path} ${media}`).toEqual([]);
        }
      }
    }
    expect(bodies).toBeGreaterThan(0);
  });

  it('names every object and enum schema once: operations refer to components, never inline ones', async () => {
    const document = await load();
    for (const [path, node] of walk(document.paths)) {
      const inlineObject = node.type === 'object' && node.properties !== undefined;
      expect(inlineObject || node.enum !== undefined, `an inline schema at ${path}`).toBe(false);
    }
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      for (const [path, node] of walk(schema.properties ?? {})) {
        expect(node.enum, `an inline enum at ${name}${path}`).toBeUndefined();
      }
    }
    for (const [path, node] of walk(document)) {
      if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#/components/schemas/')) continue;
      expect(document.components.schemas, path).toHaveProperty([node.$ref.split('/')[3] as string]);
    }
  });

  it('has unique, readable operationIds', async () => {
    const ids = Object.values((await load()).paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  });
});

describe('names of schemas', () => {
  it('given a resource named problems and an enum named input, gives the later claim a number', () => {
    const document = openApiDocument(
      api('clash', [
        resource('problems', [field('kind', 'enum', { values: ['a'] })]),
        resource('posts', [field('input', 'enum', { values: ['x', 'y'] })]),
      ]),
    ) as unknown as Document;
    expect(Object.keys(document.components.schemas)).toEqual([
      'Problem',
      'ProblemError',
      'ProblemType',
      'Health',
      // the filters fields of a type share (filters.ts): the ids', the timestamps'
      'UuidFilter',
      'DateTimeFilter',
      'Problem2',
      'Problem2Input',
      'Problem2Patch',
      'Problem2Page',
      'Problem2Kind',
      'Problem2KindFilter',
      'Post',
      'PostInput',
      'PostPatch',
      'PostPage',
      'PostInput2',
      'PostInput2Filter',
    ]);
    expect(document.components.schemas.Post?.properties).toMatchObject({
      // optional, no default: a record may hold null
      input: { anyOf: [{ $ref: '#/components/schemas/PostInput2' }, { type: 'null' }] },
    });
  });

  it('refers to an enum from its field, nullable or not, and from its filters', () => {
    const document = openApiDocument(
      api('enums', [
        resource('posts', [
          field('status', 'enum', { values: ['draft', 'done'], required: true }),
          field('mood', 'enum', { values: ['calm'], nullable: true }),
        ]),
      ]),
    ) as unknown as Document;
    const status = { $ref: '#/components/schemas/PostStatus' };
    expect(document.components.schemas.PostStatus).toEqual({ type: 'string', enum: ['draft', 'done'] });
    expect(document.components.schemas.Post?.properties).toMatchObject({
      status,
      mood: { anyOf: [{ $ref: '#/components/schemas/PostMood' }, { type: 'null' }] },
    });
    // one deepObject parameter for the field, its operators a named object whose values are the enum's
    const parameters = document.paths['/posts']?.get?.parameters as Node[];
    expect(parameters).toContainEqual({ $ref: '#/components/parameters/Post.status' });
    expect(document.components.parameters['Post.status']).toEqual({
      name: 'status',
      in: 'query',
      style: 'deepObject',
      explode: true,
      schema: { $ref: '#/components/schemas/PostStatusFilter' },
    });
    const filter = document.components.schemas.PostStatusFilter as { properties: Record<string, Node> };
    expect(Object.keys(filter.properties)).toEqual(['eq', 'ne', 'in']);
    expect(filter).toMatchObject({ type: 'object', additionalProperties: false });
    expect(filter.properties.eq).toMatchObject(status);
    // an `in` list is one comma-separated string (openapi-fetch sends no array inside a deepObject parameter)
    expect(filter.properties.in).toMatchObject({ type: 'string', pattern: '^(draft|done)(,(draft|done))*$' });
  });

  it('documents the 401 of the event feed and stream where they need no token: a token sent must be valid', () => {
    const posts = resource('posts', [field('title', 'string')]);
    const open = { ...posts, access: { ...posts.access, read: [{ kind: 'public' as const }] } };
    const document = openApiDocument({
      ...api('feed', [open]),
      events: { retention: '7d', retentionMs: 604_800_000, webhooks: false, retry: { attempts: 1, firstDelayMs: 1 } },
    }) as unknown as Document;
    for (const path of ['/events', '/events/stream']) {
      const get = document.paths[path]?.get as { security: unknown[]; responses: Node };
      expect(get.security, path).toContainEqual({});
      expect(Object.keys(get.responses), path).toContain('401');
      expect(Object.keys(get.responses), path).not.toContain('403');
    }
  });

  it('says where include is described that an include over limits.include.maxRecords is a 400, with its numbers', async () => {
    const library = await readDefinition(join(ROOT, 'examples/library.yaml'));
    const limits = { ...library.limits, pageSize: { default: 7, max: 30 }, include: { maxRecords: 321 } };
    const document = openApiDocument({ ...library, limits }) as unknown as Document;
    const rule = /more than 321 records \(limits\.include\.maxRecords\) is a 400.* or 7 \(an embedded page\)/;
    type Operation = { parameters: Node[]; responses: Record<string, Node> };
    // shared responses and parameters are $refs into components
    const resolve =
      (doc: Document) =>
      (node: Node | undefined): Node | undefined => {
        const target = node?.$ref;
        if (typeof target !== 'string') return node;
        const [, section = '', name = ''] = target.replace('#/components/', '/').split('/');
        return (doc.components as unknown as Record<string, Record<string, Node>>)[section]?.[name];
      };
    const deref = resolve(document);
    const operations = ['/books', '/books/{id}', '/authors/{id}/books'].map((path) => [
      path,
      document.paths[path]?.get,
    ]);
    for (const [path, get] of operations as [string, Operation][]) {
      expect(deref(get.responses['400'])?.description, path).toMatch(rule);
      const include = get.parameters.map(deref).find((p) => p?.name === 'include');
      expect(include?.description, path).toMatch(/At most 321 records embedded in all \(limits\.include\.maxRecords/);
    }
    // a resource without relations takes no include: its 400 says nothing of one
    const plain = openApiDocument(api('plain', [resource('posts', [field('title', 'string')])])) as unknown as Document;
    for (const path of ['/posts', '/posts/{id}']) {
      const responses = plain.paths[path]?.get?.responses as Record<string, Node> | undefined;
      const bad = resolve(plain)(responses?.['400']);
      expect(bad?.description, path).toEqual(expect.any(String));
      expect(bad?.description, path).not.toMatch(/include/);
    }
  });

  it.each([false, true])('names the schemas of webhooks only where the API has them (webhooks: %s)', (webhooks) => {
    const document = openApiDocument({
      ...api('feed', [resource('posts', [field('title', 'string')])]),
      events: { retention: '7d', retentionMs: 604_800_000, webhooks, retry: { attempts: 1, firstDelayMs: 1 } },
    }) as unknown as Document;
    const names = Object.keys(document.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['Event', 'PostEvent', 'PostEventType', 'EventPage']));
    const subscriptions = [
      'EventType',
      'Webhook',
      'WebhookCreated',
      'WebhookInput',
      'WebhookPatch',
      'WebhookPage',
      'Delivery',
    ];
    for (const name of subscriptions) expect(names.includes(name), name).toBe(webhooks);
    expect(Object.keys(document.paths).some((path) => path.startsWith('/webhooks'))).toBe(webhooks);
    // every reference resolves
    const refs = [...JSON.stringify(document).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    for (const ref of refs) expect(names, ref).toContain(ref);
  });

  it("says a field's default where a client may leave it out, and not where it is required (found by a newcomer)", () => {
    const document = openApiDocument(
      api('defaults', [
        resource('courses', [
          field('capacity', 'integer', { required: true, default: 30 }),
          field('level', 'integer', { default: 1 }),
        ]),
      ]),
    ) as unknown as Document;
    const input = document.components.schemas.CourseInput as { properties: Record<string, Node>; required: string[] };
    expect(input.required).toContain('capacity');
    expect(input.properties.capacity).toMatchObject({
      description: 'The records that existed when it was added took 30.',
    });
    expect(input.properties.capacity).not.toHaveProperty('x-default');
    expect(input.properties.level).toMatchObject({ description: 'Default: 1 (when left out).', 'x-default': 1 });
  });
});

describe('the ProblemType schema', () => {
  it.each([
    ['/problems', 'http://127.0.0.1:3000/problems/conflict-unique', true],
    ['/api/v1/problems', 'https://api.example.com/api/v1/problems/conflict-unique', true],
    ['https://errors.example.com/api', 'https://errors.example.com/api/conflict-unique', false],
  ])('given problems under %s, takes %s among the types', (base, type, origin) => {
    const given = { ...api('types', [resource('posts', [field('title', 'string')])]), problemsBase: base };
    const document = openApiDocument(given) as unknown as Document;
    const schema = document.components.schemas.ProblemType as {
      enum?: string[];
      pattern?: string;
      description: string;
    };
    // under the prefix, the origin is the request's: a pattern holds the path; under problems.base, an enum
    const accepts = (value: string): boolean =>
      schema.enum?.includes(value) ?? new RegExp(String(schema.pattern)).test(value);
    expect(accepts(type)).toBe(true);
    expect(accepts(type.replace('conflict-unique', 'not-found'))).toBe(true);
    expect(accepts(type.replace('conflict-unique', 'no-such-kind'))).toBe(false);
    expect(accepts(type.replace('conflict-unique', 'not-found/more'))).toBe(false);
    expect(schema.description.includes('<origin>')).toBe(origin);
    const problem = document.components.schemas.Problem as { properties: Record<string, unknown> };
    expect(problem.properties.type).toEqual({ $ref: '#/components/schemas/ProblemType' });
  });
});
