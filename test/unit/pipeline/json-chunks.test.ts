import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import { openApiDocument, splitDocument } from '../../../src/openapi/document.js';
import { formatAll } from '../../../src/pipeline/format.js';
import { documentChunks, type JsonChunk } from '../../../src/pipeline/json-chunks.js';
import { prettierJsonOfStringified } from '../../../src/pipeline/json-text.js';
import { formattedBefore, hash, type Manifest } from '../../../src/pipeline/manifest.js';
import { definitionOf } from '../../../src/pipeline/read-definition.js';
import { render, type RenderedFile } from '../../../src/pipeline/render.js';
import type { Api } from '../../../src/model.js';
import { shopDefinition } from '../../helpers/definitions.js';

const EXAMPLES = join(import.meta.dirname, '../../../examples');
const WIDTH = PRETTIER_OPTIONS.printWidth;
const PATH = 'src/openapi.json';

const example = (name: string): Api => {
  const file = join(EXAMPLES, name);
  return definitionOf(file, readFileSync(file, 'utf8'));
};

/** The document's text as the generator printed it before it was printed in chunks: whole. */
const whole = (api: Api): string | undefined =>
  prettierJsonOfStringified(`${JSON.stringify(openApiDocument(api), null, 2)}\n`, WIDTH);

const chunksOf = (api: Api): JsonChunk[] => documentChunks(splitDocument(api), WIDTH) ?? fail();

const joined = (chunks: readonly JsonChunk[]): string => chunks.map((c) => c.text() ?? fail()).join('');

const rendered = (api: Api): RenderedFile =>
  render({ path: PATH, owner: 'generator', document: splitDocument(api) }, 'api.yaml');

/** makers, parts and audits (helpers/definitions.ts); `extra` adds fields to parts. */
const shop = (extra = ''): Api => definitionOf('api.yaml', shopDefinition(extra));

describe('the OpenAPI document printed in chunks', () => {
  it('is, joined, the document prettier prints: events, webhooks, relations and deprecations included', async () => {
    for (const name of ['blog.yaml', 'tasks.yaml', 'clinic.yaml', 'library.yaml']) {
      const api = example(name);
      const chunks = chunksOf(api);
      // the frame's four pieces, and each resource's paths, schemas and listing parameters
      expect(chunks).toHaveLength(4 + 3 * api.resources.length);
      expect(new Set(chunks.map((c) => c.key)).size, name).toBe(chunks.length);
      expect(joined(chunks), name).toBe(whole(api));
    }
    const tasks = openApiDocument(example('tasks.yaml'));
    expect(joined(chunksOf(example('tasks.yaml')))).toBe(
      await prettier.format(JSON.stringify(tasks, null, 2), { ...PRETTIER_OPTIONS, parser: 'json' }),
    );
  });

  it('changes the keys of the resources an edit changed, and only theirs', () => {
    const before = chunksOf(shop());
    const after = chunksOf(shop(', grade: string'));
    const changed = before.flatMap((c, i) => (after[i]?.key === c.key ? [] : [i]));
    // the frame's first piece holds no resource; parts' paths are 1–3, the next piece 4, their schemas 5–7, the
    // next 8, their listing parameters 9–11 (makers' listing filters through parts)
    expect(changed).toEqual([1, 2, 5, 6, 9, 10]);
    expect(joined(after)).toBe(whole(shop(', grade: string')));
  });

  it("changes every resource's keys where an edit adds the first field of a type: its filter's name is new", () => {
    const before = chunksOf(shop());
    const after = chunksOf(shop(', grade: integer'));
    const changed = before.flatMap((c, i) => (after[i]?.key === c.key ? [] : [i]));
    // and the frame's piece before the resources' schemas holds the shared filters: IntegerFilter comes in
    expect(changed).toEqual([1, 2, 3, 4, 5, 6, 7, 9, 10, 11]);
    expect(joined(after)).toBe(whole(shop(', grade: integer')));
  });

  it('prints only the chunks the last run did not write, taking the others from the file', async () => {
    const [first] = await formatAll([rendered(shop())]);
    const manifest = {
      files: { [PATH]: hash(first?.content ?? '') },
      chunks: { [PATH]: first?.chunks?.map((c) => `${c.key}:${c.length}:${c.hash}`) },
    } as unknown as Manifest;
    const disk = (text: string) => (path: string) => (path === PATH ? text : undefined);
    const edited = rendered(shop(', grade: string'));
    const printed: string[] = [];
    const json = edited.json ?? fail();
    const counted = {
      ...edited,
      json: {
        ...json,
        chunks: json.chunks.map((c) => ({ key: c.key, text: () => (printed.push(c.key), c.text()) })),
      },
    };
    const [again] = await formatAll([counted], formattedBefore(disk(first?.content ?? ''), manifest));
    // the paths, schemas and listing parameters of parts and of makers (each in the other's neighbourhood, by the
    // ref): the audits' and the frame's are cut out of the file
    expect(printed).toHaveLength(6);
    expect(again?.content).toBe(whole(shop(', grade: string')));
    // what this run records of its chunks (the hashes of those cut out of the file included) lets the next cut them all
    const next = {
      files: { [PATH]: hash(again?.content ?? '') },
      chunks: { [PATH]: again?.chunks?.map((c) => `${c.key}:${c.length}:${c.hash}`) },
    } as unknown as Manifest;
    const knownNext = formattedBefore(disk(again?.content ?? ''), next);
    expect(json.chunks.every((c) => knownNext.chunk(PATH, c.key) !== undefined)).toBe(true);
    // a file edited by hand since: nothing is cut out of it, everything is printed
    printed.length = 0;
    const [fromScratch] = await formatAll([counted], formattedBefore(disk(`${first?.content} `), manifest));
    expect(printed).toHaveLength(json.chunks.length);
    expect(fromScratch?.content).toBe(again?.content);
    // a record that does not add up to the file (a chunk's length off by one): nothing is cut out either
    const entries = manifest.chunks?.[PATH] ?? [];
    const off = entries.map((entry, i) => {
      const [key, length, digest] = entry.split(':');
      return i === 0 ? `${key}:${Number(length) + 1}:${digest}` : entry;
    });
    const tampered = { ...manifest, chunks: { [PATH]: off } } as Manifest;
    const known = formattedBefore(disk(first?.content ?? ''), tampered);
    expect(json.chunks.some((c) => known.chunk(PATH, c.key) !== undefined)).toBe(false);
  });

  it('is printed whole by prettier where a chunk is not in the shape printed here', async () => {
    // an enum's values on one line with text that is not ASCII: prettier's widths are not counted here
    const api = definitionOf(
      'api.yaml',
      [
        'name: menu',
        'version: 1.0.0',
        'auth: { default: public }',
        'resources:',
        '  dishes:',
        '    fields: { name: string, origin: { type: enum, values: [日本, café] } }',
      ].join('\n'),
    );
    const file = rendered(api);
    expect(file.json?.chunks.some((c) => c.text() === undefined)).toBe(true);
    const [formatted] = await formatAll([file]);
    const document = JSON.stringify(openApiDocument(api), null, 2);
    expect(formatted?.content).toBe(await prettier.format(document, { ...PRETTIER_OPTIONS, parser: 'json' }));
    expect(formatted?.chunks).toBeUndefined();
  });
});

function fail(): never {
  throw new Error('missing');
}
