import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import prettier from 'prettier';
import { compilerOptions, PRETTIER_OPTIONS } from '../../src/generate/project-files.js';
import { RUNTIME } from '../../src/pipeline/plan.js';
import { format, formatAll } from '../../src/pipeline/format.js';
import { prettierJson } from '../../src/pipeline/json-text.js';
import type { RenderedFile } from '../../src/pipeline/render.js';

describe('formatAll', () => {
  it('formats a large project in worker threads exactly as one file at a time would, in order', async () => {
    const files: RenderedFile[] = Array.from({ length: 120 }, (_, i) => ({
      path: i % 3 === 0 ? `src/f${i}.ts` : i % 3 === 1 ? `data/f${i}.json` : `notes/f${i}.txt`,
      owner: 'generator',
      content:
        i % 3 === 0
          ? `export const value${i} = {a:${i},   b:"x${i}"}`
          : i % 3 === 1
            ? `{"n":${i},"list":[1,2,3]}`
            : `left as it is ${i}  `,
    }));
    const inWorkers = await formatAll(files);
    const oneByOne = await Promise.all(files.map(format));
    expect(inWorkers).toEqual(oneByOne);
    expect(inWorkers[0]?.content).toBe("export const value0 = { a: 0, b: 'x0' };\n");
    expect(inWorkers[2]?.content).toBe('left as it is 2  ');
  });

  it('takes the text a file had when it was rendered the same before, and formats only the others', async () => {
    const files: RenderedFile[] = ['a', 'b', 'c'].map((name) => ({
      path: `src/${name}.ts`,
      owner: 'generator',
      content: `export const ${name} = {x:1}`,
    }));
    const known = new Map([['src/b.ts', 'what the last run wrote\n']]);
    const formatted = await formatAll(files, (file) => known.get(file.path));
    expect(formatted.map((f) => f.content)).toEqual([
      'export const a = { x: 1 };\n',
      'what the last run wrote\n',
      'export const c = { x: 1 };\n',
    ]);
  });
});

describe('JSON, printed in prettier’s shape without prettier', () => {
  const viaPrettier = async (value: unknown): Promise<string> =>
    prettier.format(JSON.stringify(value, null, 2), { ...PRETTIER_OPTIONS, parser: 'json' });
  const direct = (value: unknown): string | undefined => prettierJson(JSON.stringify(value, null, 2), 110);
  const long = (n: number): string => 'x'.repeat(n);

  it.each([
    ['nested objects and empty members', { a: { b: {}, c: [] }, d: null, e: 1.5, f: true }],
    ['a short array of strings', { required: ['id', 'title', 'createdAt'] }],
    // the array's line is exactly 110 columns, then 111: prettier's fits, comma included
    ['an array that just fits', { k: [long(48), long(47)] }],
    ['an array one column too long', { k: [long(48), long(48)] }],
    ['an array that just fits, comma included', { k: [long(47), long(47)], z: 1 }],
    ['an array one column too long, comma included', { k: [long(48), long(47)], z: 1 }],
    ['an array of objects', { items: [{ a: 1 }, {}, { b: [1, 2] }] }],
    ['nested arrays', { x: [[1, 2], [], [[long(60)], [long(60)]]] }],
    ['deep and last members (no comma)', { a: { b: { c: [long(50), long(45)] } } }],
    ['strings with escapes', { s: ['a"b', 'c\\d', 'e\nf'] }],
  ])('%s', async (_, value) => {
    expect(direct(value)).toBe(await viaPrettier(value));
  });

  it('gives way to prettier where its rules differ: compact text, long arrays of numbers, non-ASCII near the edge', () => {
    expect(prettierJson('{"a":1}', 110)).toBeUndefined();
    expect(direct({ n: Array.from({ length: 60 }, (_, i) => i) })).toBeUndefined();
    expect(direct({ s: ['日本語'] })).toBeUndefined();
  });

  it('prints a generated OpenAPI document as prettier does', async () => {
    const { openApiDocument } = await import('../../src/openapi/document.js');
    const { readDefinition } = await import('../../src/pipeline/read-definition.js');
    for (const example of ['blog.yaml', 'tasks.yaml']) {
      const api = await readDefinition(`${import.meta.dirname}/../../examples/${example}`);
      const document = openApiDocument(api);
      expect(direct(document), example).toBe(await viaPrettier(document));
    }
  });
});

/** The files of runtime/src/ that projects never get: stand-ins of the files restsmith writes per project. */
const STAND_INS = ['src/settings.ts', 'src/openapi.json', 'src/resources/index.ts', 'src/db/migrations/index.ts'];

function* filesUnder(dir: string, base = dir): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path, base);
    else yield relative(base, path);
  }
}

describe('the runtime copied into projects', () => {
  const runtime = join(import.meta.dirname, '../../runtime');

  it('is every file of runtime/src: listed in RUNTIME, a starter of a user-owned file, or a stand-in saying so', () => {
    const files = [...filesUnder(join(runtime, 'src'))].map((f) => `src/${f}`).sort();
    expect(files).toEqual([...RUNTIME, 'src/main.ts', 'src/hooks.ts', ...STAND_INS].sort());
    for (const standIn of STAND_INS.filter((f) => f.endsWith('.ts'))) {
      expect(readFileSync(join(runtime, standIn), 'utf8')).toMatch(/^\/\/ A STAND-IN, never copied into a project/);
    }
  });

  it('is type-checked with the compiler options of generated projects', () => {
    const text = readFileSync(join(runtime, 'tsconfig.json'), 'utf8');
    const { compilerOptions: checked } = ts.parseConfigFileTextToJson('tsconfig.json', text).config as {
      compilerOptions: object;
    };
    expect(checked).toEqual({ ...compilerOptions, noEmit: true, noUnusedLocals: true });
  });

  it('is formatted in the repo as projects format it (runtime/.prettierrc.json is PRETTIER_OPTIONS)', () => {
    const options = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../runtime/.prettierrc.json'), 'utf8'),
    ) as object;
    expect(options).toEqual(PRETTIER_OPTIONS);
  });
});
