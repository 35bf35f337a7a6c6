import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import prettier from 'prettier';
import * as oxc from '@prettier/plugin-oxc';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import { compactText, printConst, printConstants } from '../../../src/generate/literal.js';
import { format, formatAll } from '../../../src/pipeline/format.js';
import { plan } from '../../../src/pipeline/plan.js';
import { render } from '../../../src/pipeline/render.js';
import { readDefinition } from '../../../src/pipeline/read-definition.js';

/** what prettier makes of the constant, written compact as the `js` helper writes it */
const viaPrettier = (name: string, value: unknown): Promise<string> =>
  prettier.format(`export const ${name} = ${JSON.stringify(value)};`, {
    ...PRETTIER_OPTIONS,
    parser: 'oxc-ts',
    plugins: [oxc],
    filepath: 'schemas.ts',
  });

const long = (n: number): string => 'x'.repeat(n);

describe('printConst: a JSON value as a TypeScript constant in prettier’s layout', () => {
  it.each([
    ['nested objects, empty members, scalars', { a: { b: {}, c: [] }, d: null, e: -1.5, f: true, g: false }],
    // `export const v = { k: '…' };` is exactly 110 columns, then 111
    ['an object that just fits', { k: long(88) }],
    ['an object one column too long', { k: long(89) }],
    ['an array that just fits, its comma included', { k: [long(50), long(40)], z: 1 }],
    ['an array one column too long, its comma included', { k: [long(50), long(41)], z: 1 }],
    // a string that does not fit after its key goes below it; after a key of four characters or fewer it stays
    ['a long string after a long key', { a: { description: long(100) } }],
    ['a long string after a key of four characters', { a: { type: long(104) } }],
    ['a long string after a key of five characters', { a: { title: long(104) } }],
    ['a long string in an array', { a: [long(120), 'b'] }],
    // prettier spreads an array of two or more objects (or arrays) of two or more entries each, and what holds it
    [
      'an array of objects of two keys',
      {
        a: {
          b: [
            { x: 1, y: 2 },
            { x: 3, y: 4 },
          ],
        },
      },
    ],
    ['arrays of one entry, or mixed', { a: [{ x: 1 }, { y: 2 }], b: [[1, 2], { x: 1, y: 2 }], c: [[1, 2], [3]] }],
    ['keys to quote', { 'x-y': 1, $ref: 'a', 'title[gte]': 2, _k9: 3, "it's": 4, 'a"b': 5, default: 6 }],
    ['quotes and escapes', { s: ["it's", 'say "hi"', `a'b"c'`, 'back\\slash', 'line\nbreak', 'tab\t', '\u0001'] }],
    ['a short array of numbers', { enum: [1, 2, 3], range: [-1, 0.5] }],
    [
      'a top-level array',
      [
        { a: 1, b: 2 },
        { a: 3, b: 4 },
      ],
    ],
  ])('%s', async (_, value) => {
    const printed = printConst('v', value);
    expect(printed).toBeDefined();
    expect(`${printed ?? ''}\n`).toBe(await viaPrettier('v', value));
  });

  it.each([
    ['one line with its suffix', { k: long(74) }],
    ['broken by its suffix alone', { k: long(75) }],
    ['broken, the suffix after the brace', { a: { description: long(100) }, b: [1, 2] }],
  ])('prints `as const` after a constant as prettier does: %s', async (_, value) => {
    const want = await prettier.format(`export const v = ${JSON.stringify(value)} as const;`, {
      ...PRETTIER_OPTIONS,
      parser: 'oxc-ts',
      plugins: [oxc],
      filepath: 'schemas.ts',
    });
    expect(`${printConst('v', value, ' as const') ?? ''}\n`).toBe(want);
  });

  it('answers undefined where prettier’s rules are not these: prettier formats the file then', async () => {
    const unprinted = [
      { n: Array.from({ length: 60 }, (_, i) => i) }, // prettier fills the lines with the numbers
      { n: 1e21 }, // prettier writes 1e21 for JSON's 1e+21
      { n: 1e-7 },
      { 200: 'a' }, // a key that looks like a number
      { s: '日本語' }, // width as prettier measures it
      { [long(120)]: { a: 1 } }, // a key too long for its line
    ];
    for (const value of unprinted) expect(printConst('v', value), JSON.stringify(value)).toBeUndefined();
    // a name so long that `{};` does not fit beside it (prettier puts the value on the next line); `{` still does
    const name = 'N'.repeat(92);
    expect(printConst(name, {})).toBeUndefined();
    expect(printConst(name, [])).toBeUndefined();
    const printed = printConst(name, { a: 1 });
    expect(`${printed ?? ''}\n`).toBe(await viaPrettier(name, { a: 1 }));
    expect(printConst('v', 'a string')).toBeUndefined();
  });

  const key = fc.oneof(
    fc.constantFrom('type', 'items', 'id', 'enum', 'title', 'description', 'additionalProperties', 'x-y', '$ref'),
    fc.string({ maxLength: 12 }),
    fc.stringMatching(/^[a-z]{8,60}$/),
  );
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.stringMatching(/^[a-z ]{60,118}$/),
    fc.constantFrom("it's", 'say "hi"', `a'b"c'`, 'back\\slash', 'line\nbreak', '</script>'),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
      fc.boolean(),
      fc.constant(null),
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 5 }),
    object: fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  }));

  it('prints what prettier prints, on generated values', async () => {
    let printed = 0;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 8 }), async (v) => {
        const mine = printConst('schema', v);
        if (mine === undefined) return;
        printed += 1;
        expect(`${mine}\n`).toBe(await viaPrettier('schema', v));
      }),
      { numRuns: 1500 },
    );
    // most values are printed: a printer that gave up on everything would pass the property above
    expect(printed).toBeGreaterThan(500);
  });

  it('prints every example’s schemas.ts as prettier formats it, constants and all', async () => {
    for (const example of ['blog', 'tasks', 'clinic', 'library']) {
      const api = await readDefinition(`${import.meta.dirname}/../../../examples/${example}.yaml`);
      const files = plan(api, { source: `${example}.yaml`, migrations: [], orphanFiles: [], orphanHandlers: new Map() })
        .filter((file) => file.path.endsWith('/schemas.ts'))
        .map((file) => render(file, `${example}.yaml`));
      expect(files.length, example).toBeGreaterThan(1);
      for (const file of files) {
        expect(file.constants?.length, file.path).toBeGreaterThan(3);
        const printed = printConstants(file.content, file.constants ?? []);
        expect(printed, file.path).not.toBe(file.content);
        // what prettier makes of the compact text, and what formatAll writes, printed here
        const { constants: _, ...compact } = file;
        expect((await format(compact)).content, file.path).toBe(printed);
        expect((await format(file)).content, file.path).toBe(printed);
      }
    }
  });

  it('leaves a schemas.ts with what the printer does not know to prettier, which formats it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'literal-')), 'cafe.yaml');
    writeFileSync(
      file,
      [
        'name: cafe',
        'version: 1.0.0',
        'auth: { default: public }',
        'resources:',
        '  dishes:',
        '    fields:',
        "      name: { type: string, required: true, description: 'Le nom du plat, « tel qu’au menu »' }",
        '      price: { type: number, min: 0 }',
        '',
      ].join('\n'),
    );
    const api = await readDefinition(file);
    const planned = plan(api, { source: 'cafe.yaml', migrations: [], orphanFiles: [], orphanHandlers: new Map() });
    const schemas = render(
      planned.find((p) => p.path.endsWith('/schemas.ts')) ?? expect.fail('no schemas.ts'),
      'cafe.yaml',
    );
    expect(printConstants(schemas.content, schemas.constants ?? [])).toBeUndefined();
    expect(schemas.content).toContain('« tel qu’au menu »');
    const formatted = (await format(schemas)).content;
    expect(formatted).toBe(
      await prettier.format(schemas.content, { ...PRETTIER_OPTIONS, parser: 'typescript', filepath: 'schemas.ts' }),
    );
    expect(formatted).not.toBe(schemas.content);
    // the next file is judged on its own constants
    const blog = await readDefinition(`${import.meta.dirname}/../../../examples/blog.yaml`);
    const next = plan(blog, { source: 'blog.yaml', migrations: [], orphanFiles: [], orphanHandlers: new Map() }).find(
      (p) => p.path.endsWith('/schemas.ts'),
    );
    const blogSchemas = render(next ?? expect.fail('no schemas.ts'), 'blog.yaml');
    expect(printConstants(blogSchemas.content, blogSchemas.constants ?? [])).toBeDefined();
  });

  it('prints the constants of a rendered file where they are, in order, and nothing else', () => {
    const constants = [
      { name: 'a', json: JSON.stringify({ type: 'string' }) },
      {
        name: 'b',
        json: JSON.stringify({
          list: [
            { x: 1, y: 2 },
            { x: 3, y: 4 },
          ],
        }),
      },
    ];
    const content = `// a comment\n\n${constants.map(compactText).join('\n\nconst between = 1;\n\n')}\n`;
    expect(printConstants(content, constants)).toBe(
      [
        '// a comment',
        '',
        "export const a = { type: 'string' };",
        '',
        'const between = 1;',
        '',
        'export const b = {',
        '  list: [',
        '    { x: 1, y: 2 },',
        '    { x: 3, y: 4 },',
        '  ],',
        '};',
        '',
      ].join('\n'),
    );
    // a constant that is not in the text (or not in this order) is not guessed at
    expect(printConstants(content, [...constants].reverse())).toBeUndefined();
    expect(printConstants('no constants', [])).toBe('no constants');
  });

  it('takes the last run’s text of an unchanged file instead of printing it again', async () => {
    const file = { path: 'src/resources/a/schemas.ts', owner: 'generator' as const, content: 'x', constants: [] };
    const known = {
      file: () => 'as the last run wrote it\n',
      chunk: () => undefined,
      rendered: () => undefined,
      chunks: () => undefined,
    };
    expect((await formatAll([file], known))[0]?.content).toBe('as the last run wrote it\n');
    expect((await formatAll([file]))[0]?.content).toBe('x');
  });
});
