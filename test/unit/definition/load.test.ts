import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DefinitionError, UserError, formatProblem } from '../../../src/errors.js';
import { load, parseDefinition } from '../../../src/pipeline/load.js';

/** The error a promise rejects with (the test fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

function syntaxProblems(file: string, text: string): string[] {
  try {
    parseDefinition(file, text);
    return [];
  } catch (error) {
    if (error instanceof DefinitionError) return error.problems.map(formatProblem);
    throw error;
  }
}

describe('load', () => {
  it('reads a YAML file and keeps the path as given, the text, the document and the data', async () => {
    const loaded = await load('examples/blog.yaml');
    expect(loaded.file).toBe('examples/blog.yaml');
    expect(loaded.text).toContain('name: blog');
    expect(loaded.doc.errors).toEqual([]);
    expect(loaded.data).toMatchObject({ name: 'blog', version: '1.0.0', prefix: '/api/v1' });
  });

  it.each([
    ['examples/invalid/notes.txt', 'examples/invalid/notes.txt: a definition must be a .yaml, .yml or .json file'],
    ['api', 'api: a definition must be a .yaml, .yml or .json file'],
  ])('refuses %s as wrong usage (exit code 2)', async (file, message) => {
    const error = await rejection(load(file));
    expect(error).toBeInstanceOf(UserError);
    expect(error).not.toBeInstanceOf(DefinitionError);
    expect(error).toMatchObject({ message, exitCode: 2 });
  });

  it('reports a missing file clearly (exit code 1)', async () => {
    const error = await rejection(load('examples/nope.yaml'));
    expect(error).toBeInstanceOf(UserError);
    expect(error).toMatchObject({ message: 'cannot read examples/nope.yaml: no such file', exitCode: 1 });
  });

  it('reports a directory clearly', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'restsmith-')), 'api.yaml');
    mkdirSync(dir);
    const error = await rejection(load(dir));
    expect(error).toMatchObject({ message: `cannot read ${dir}: it is a directory`, exitCode: 1 });
  });

  it('reports every YAML syntax error, with its position, as one DefinitionError', async () => {
    const error = await rejection(load('examples/invalid/yaml-syntax.yaml'));
    expect(error).toBeInstanceOf(DefinitionError);
    const problems = error instanceof DefinitionError ? error.problems.map(formatProblem) : [];
    // the open brace at its own position (the parser says so at 7:7, where it noticed); with other syntax errors,
    // the rest of the file is not checked
    expect(problems).toEqual([
      'examples/invalid/yaml-syntax.yaml:6:14  (syntax)  this { is never closed: end the map with }',
      'examples/invalid/yaml-syntax.yaml:8:9  (syntax)  All mapping items must start at the same column',
      'examples/invalid/yaml-syntax.yaml:11:1  (syntax)  Missing closing "quote',
    ]);
  });

  it('reports a tab once, not what the parser makes of the rest of its line; every error of its own', () => {
    const yaml = [
      'name: fleet',
      'version: 1.0.0',
      'resources:',
      '  vehicles:',
      '    fields:',
      '      vin: { type: string, required: true',
      '      make: { type: string, example: @abc }',
      '\t  model: string',
      '  parts:',
      '    fields:',
      '      sku: string',
      '      sku: text',
      '',
    ].join('\n');
    expect(syntaxProblems('fleet.yaml', yaml)).toEqual([
      'fleet.yaml:6:12  (syntax)  this { is never closed: end the map with }',
      'fleet.yaml:7:38  (syntax)  Plain value cannot start with reserved character @',
      'fleet.yaml:8:1  (syntax)  Tabs are not allowed as indentation',
      'fleet.yaml:12:7  (syntax)  duplicate key "sku": map keys must be unique',
    ]);
  });

  it('reports a definition nested too deeply for the parser at its position, in words', () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const yaml = `name: deep\nversion: 1.0.0\nresources:\n  things:\n    fields:\n      a: { type: json, default: ${deep(5000)} }\n`;
    const problems = syntaxProblems('deep.yaml', yaml);
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems)
      expect(problem).toMatch(/^deep\.yaml:6:\d+ {2}\(syntax\) {2}nested too deeply to read: /);
    const json = `{"name": "deep", "version": "1.0.0", "resources": {"things": {"fields": {"a": ${deep(5000)}}}}}`;
    expect(syntaxProblems('deep.json', json)[0]).toMatch(
      /^deep\.json:1:\d+ {2}\(syntax\) {2}nested too deeply to read: /,
    );
  });

  it('reports a JSON syntax error at its position', async () => {
    const error = await rejection(load('examples/invalid/json-syntax.json'));
    expect(error instanceof DefinitionError && error.problems.map(formatProblem)).toEqual([
      'examples/invalid/json-syntax.json:6:36  (syntax)  invalid JSON: a comma before } (JSON allows none after the last item): remove it',
    ]);
  });
});

describe('parseDefinition', () => {
  it.each([
    {
      name: 'duplicate keys',
      file: 'api.yaml',
      text: 'name: a\nversion: "1"\nname: b\n',
      want: ['api.yaml:3:1  (syntax)  duplicate key "name": map keys must be unique'],
    },
    {
      name: 'duplicate keys in a flow map and quoted, each named as written',
      file: 'api.yaml',
      text: 'name: a\nversion: "1"\nx: { a: 1, a: 2 }\n"y": 1\n"y": 2\n',
      want: [
        'api.yaml:3:12  (syntax)  duplicate key "a": map keys must be unique',
        'api.yaml:5:1  (syntax)  duplicate key "y": map keys must be unique',
      ],
    },
    {
      name: 'JSON that YAML would accept: a trailing comma',
      file: 'api.json',
      text: '{\n  "name": "a",\n}\n',
      want: [
        'api.json:2:14  (syntax)  invalid JSON: a comma before } (JSON allows none after the last item): remove it',
      ],
    },
    {
      name: 'JSON that YAML would accept: a trailing comma in a list (JSON.parse gives no position)',
      file: 'api.json',
      text: '{ "tags": ["a", "b" , ],\n  "x": 1 }',
      want: [
        'api.json:1:21  (syntax)  invalid JSON: a comma before ] (JSON allows none after the last item): remove it',
      ],
    },
    {
      name: 'a comma and a bracket inside strings are no trailing comma',
      file: 'api.json',
      text: '{ "a": "x,}", "b\\",": 1, }',
      want: [
        'api.json:1:24  (syntax)  invalid JSON: a comma before } (JSON allows none after the last item): remove it',
      ],
    },
    {
      name: 'an error before a trailing comma is the one reported',
      file: 'api.json',
      text: `{ "a": 'x', "b": [1,] }`,
      want: ["api.json:1:8  (syntax)  invalid JSON: Unexpected token '''"],
    },
    {
      name: 'JSON that YAML would accept: a comment',
      file: 'api.json',
      text: '{ "name": "a" } # note\n',
      want: ['api.json:1:17  (syntax)  invalid JSON: Unexpected non-whitespace character after JSON'],
    },
    {
      name: 'more than one document',
      file: 'api.yml',
      text: 'name: a\n---\nname: b\n',
      want: ['api.yml:2:1  (syntax)  Source contains multiple documents; please use YAML.parseAllDocuments()'],
    },
    { name: 'valid YAML', file: 'api.yml', text: 'name: a\n', want: [] },
    {
      name: 'valid JSON indented with tabs',
      file: 'api.json',
      text: '{\n\t"name": "a",\n\t"list": [1,\n\t2]\n}\n',
      want: [],
    },
  ])('$name', ({ file, text, want }) => {
    expect(syntaxProblems(file, text)).toEqual(want);
  });

  it('gives JSON the same data as JSON.parse', () => {
    const text = '{ "name": "a", "n": 1.5, "on": true, "list": [null, "x"], "nested": { "date": "2024-01-01" } }';
    expect(parseDefinition('api.json', text).data).toEqual(JSON.parse(text));
  });

  it('reads YAML 1.2: on, yes and dates stay what they look like in JSON', () => {
    const data = parseDefinition('api.yaml', 'on: item\nflag: yes\nday: 2024-01-01\nversion: 1.10\n').data;
    expect(data).toEqual({ on: 'item', flag: 'yes', day: '2024-01-01', version: 1.1 });
  });
});
