import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { definitionJsonSchema } from '../../../src/definition/json-schema.js';
import { starterDefinition } from '../../../src/definition/starter.js';
import { load, parseDefinition } from '../../../src/pipeline/load.js';

// Formats (email, date…) are annotations for editors; the validator of restsmith checks values itself.
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateFormats: false });
const validateDefinition = ajv.compile(definitionJsonSchema());

const dataOf = async (file: string): Promise<unknown> => (await load(file)).data;
const parse = (text: string): unknown => parseDefinition('api.yaml', text).data;

describe('definitionJsonSchema', () => {
  it('is a draft 2020-12 schema with an id, a title and descriptions', () => {
    const schema = definitionJsonSchema();
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:restsmith:definition',
      title: 'restsmith resource definition',
      type: 'object',
      additionalProperties: false,
      required: ['name', 'version', 'resources'],
      properties: { resources: { description: expect.stringContaining('collection name') } },
    });
  });

  it.each(['examples/blog.yaml', 'examples/tasks.yaml'])('accepts %s', async (file) => {
    const valid = validateDefinition(await dataOf(file));
    expect(validateDefinition.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('accepts the starter definition', () => {
    expect(validateDefinition(parse(starterDefinition('demo')))).toBe(true);
  });

  it('accepts shorthand fields and sizes in any case', () => {
    const data = parse(
      'name: a\nversion: "1"\nlimits: { bodySize: 2MB }\nresources:\n  posts:\n    fields: { title: string, n: integer }\n',
    );
    expect(validateDefinition(data)).toBe(true);
  });

  it.each([
    ['a misspelled type', 'examples/invalid/typo-type.yaml', '/resources/posts/fields/title'],
    ['unknown keys and bad names', 'examples/invalid/many-problems.yaml', '/name'],
  ])('rejects %s', async (_, file, path) => {
    expect(validateDefinition(await dataOf(file))).toBe(false);
    expect(validateDefinition.errors?.map((e) => e.instancePath)).toContain(path);
  });

  it.each([
    ['an option of another type', 'posts: { fields: { n: { type: integer, minLength: 1 } } }'],
    ['an enum without values', 'posts: { fields: { s: { type: enum } } }'],
    ['enum as a shorthand', 'posts: { fields: { s: enum } }'],
    ['an action without on', 'posts: { fields: {}, actions: { go: { access: admin } } }'],
  ])('rejects %s', (_, resource) => {
    expect(validateDefinition(parse(`name: a\nversion: "1"\nresources:\n  ${resource}\n`))).toBe(false);
  });
});
