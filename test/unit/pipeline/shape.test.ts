import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import prettier from 'prettier';
import * as oxc from '@prettier/plugin-oxc';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import { intersectionAlias } from '../../../src/generate/typescript.js';
import { tsString } from '../../../src/generate/literal.js';
import { plan } from '../../../src/pipeline/plan.js';
import { render, type RenderedFile } from '../../../src/pipeline/render.js';
import { readDefinition } from '../../../src/pipeline/read-definition.js';
import { inPrettierShape } from '../../../src/pipeline/shape.js';
import { ROOT } from '../../helpers/project.js';

const viaPrettier = (content: string, filepath = 'model.ts'): Promise<string> =>
  prettier.format(content, { ...PRETTIER_OPTIONS, parser: 'oxc-ts', plugins: [oxc], filepath });

/** The files of the templates in prettier's shape (render.ts, IN_SHAPE) that a definition renders. */
async function shapedFiles(path: string): Promise<RenderedFile[]> {
  const api = await readDefinition(path);
  return plan(api, { source: 'x.yaml', migrations: [], orphanFiles: [], orphanHandlers: new Map() })
    .filter(
      (file) =>
        'template' in file &&
        /^(resource\/(model|access|store|routes|nested)|project\/src\/resources\/index)\.ts\.hbs$/.test(file.template),
    )
    .map((file) => render(file, 'x.yaml'));
}

/** Each file render says is formatted is what prettier makes of it; how many were. */
async function expectAsPrettier(files: readonly RenderedFile[]): Promise<number> {
  let shaped = 0;
  for (const file of files) {
    if (file.formatted !== true) continue;
    shaped += 1;
    expect(file.content, file.path).toBe(await viaPrettier(file.content, file.path));
  }
  return shaped;
}

const line = (length: number): string => `const x = '${'y'.repeat(length - 13)}';`;

describe('inPrettierShape: a file of a template in prettier’s shape needs no formatting', () => {
  it.each([
    ['lines that fit', `${line(110)}\n`, true],
    ['a line one column too long', `${line(111)}\n`, false],
    ['a comment longer than the width (prettier leaves comments as they are)', `/** ${'x'.repeat(120)} */\nx;\n`, true],
    ['a line comment with text outside ASCII', '// « déjà »\nx;\n', true],
    ['code with letters of Latin-1 and punctuation, one column each', "const x = 'é…—→';\n", true],
    ['code with a character two columns wide', "const x = '漢';\n", false],
    ['code with a combining mark (no column)', "const x = 'e\u0301';\n", false],
    ['an empty object with a space in it', 'const x = {  };\n', false],
    // found by a reviewer: a json field's default of arrays in arrays, written compact
    ['compact JSON without a key', 'const x = f([[1,2],[3]]);\n', false],
    ['compact JSON with keys', 'const x = f({"a":1});\n', false],
    ['two blank lines', 'a;\n\n\nb;\n', false],
    ['a blank line after {', 'type A = {\n\n  a: 1;\n};\n', false],
    ['a blank line before }', 'type A = {\n  a: 1;\n\n};\n', false],
    ['a blank first line', '\na;\n', false],
    ['no line feed at the end', 'a;', false],
    ['a blank line at the end', 'a;\n\n', false],
    ['a space at the end of a line', 'a; \n', false],
    ['a tab', 'type A = {\n\ta: 1;\n};\n', false],
    // found by a reviewer: prettier prints an empty interface `{}`, and a carriage return in a comment as a line feed
    ['an empty block', 'interface A {\n}\n', false],
    ['a carriage return in a comment', '/** a\rb */\nx;\n', false],
  ])('%s', (_, content, want) => {
    expect(inPrettierShape(content)).toBe(want);
  });
});

describe('tsString and intersectionAlias print as prettier does', () => {
  it.each([['plain'], ["it's"], ['say "hi"'], [`a'b"c'`], ['back\\slash'], ['line\nbreak'], ['\u0001']])(
    'the string %j',
    async (value) => {
      expect(`const s = ${tsString(value)};\n`).toBe(await viaPrettier(`const s = ${JSON.stringify(value)};\n`));
    },
  );

  // the first fits at 110 columns flat, the next ones break after `&`, the last one only more (prettier's then)
  it.each([10, 11, 40, 62, 63])('an alias whose name is %i characters long', async (length) => {
    const name = `T${'x'.repeat(length - 1)}`;
    const text = `${intersectionAlias(name, `Omit<AnInput, 'fieldId'>`, `Partial<Pick<AnInput, 'fieldId'>>`)}\n`;
    if (inPrettierShape(text)) expect(text).toBe(await viaPrettier(text));
    else expect(text.split('\n')[0]?.length).toBeGreaterThan(110);
  });
});

describe('templates in prettier’s shape', () => {
  const definitions = ['examples', 'test/e2e/fixtures', 'bench'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => join(ROOT, dir, name)),
  );

  it.each(definitions)('render %s as prettier formats it', async (path) => {
    const files = await shapedFiles(path);
    await expectAsPrettier(files);
    // every model.ts, access.ts and resources/index.ts fits: one that did not would go to prettier, unseen here
    expect(files.filter((f) => /\/(model|access)\.ts$/.test(f.path) && f.formatted !== true)).toEqual([]);
  });

  it.each(['store', 'routes', 'nested'])(
    'renders most %s.ts of the repository’s definitions in shape (the others have lines too long)',
    async (name) => {
      const all = (await Promise.all(definitions.map(shapedFiles)))
        .flat()
        .filter((f) => f.path.endsWith(`/${name}.ts`));
      expect(all.filter((f) => f.formatted === true).length).toBeGreaterThan(all.length * 0.8);
    },
  );

  // found by a reviewer: an interface with nothing in it, a carriage return in a description
  it.each([
    ['no writable field', 'fields: {}', true],
    [
      'only a computed and a read-only field',
      'fields: { a: { type: string, computed: true }, b: { type: string, readOnly: true, nullable: true } }',
      true,
    ],
    ['a carriage return in a description', 'description: "first\\rsecond"\n    fields: { title: string }', false],
    [
      'a json default of arrays in arrays (store.ts goes to prettier)',
      'fields: { a: { type: json, default: [[1, 2], [3]] } }',
      true,
    ],
  ])('renders a resource with %s as prettier formats it, or leaves it to prettier', async (_, body, shaped) => {
    const path = join(mkdtempSync(join(tmpdir(), 'shape-')), 'd.yaml');
    writeFileSync(path, `name: t\nversion: 1.0.0\nresources:\n  notes:\n    ${body}\n`);
    const files = await shapedFiles(path);
    const model = files.find((f) => f.path.endsWith('/model.ts')) ?? expect.fail('no model.ts');
    expect(model.formatted === true).toBe(shaped);
    await expectAsPrettier(files);
  });

  // found by a reviewer: the methods of a long nested path, hugged by prettier
  it.each([20, 30, 40, 45, 50, 60])(
    'renders nested.ts under an inverse of %i characters as prettier does',
    async (n) => {
      const path = join(mkdtempSync(join(tmpdir(), 'shape-')), 'd.yaml');
      const inverse = `books${'x'.repeat(n - 5)}`;
      writeFileSync(
        path,
        `name: m\nversion: 1.0.0\nresources:\n  authors:\n    fields: { name: string }\n  books:\n    fields:\n` +
          `      authorId: { type: ref, to: authors, inverse: ${inverse} }\n`,
      );
      await expectAsPrettier(await shapedFiles(path));
    },
  );

  // found by a reviewer: the event sources of a few short names fit on one line, where the template broke them
  it.each([1, 2, 3, 4, 8])(
    'renders resources/index.ts with events and %i resources as prettier formats it',
    async (n) => {
      const path = join(mkdtempSync(join(tmpdir(), 'shape-')), 'd.yaml');
      const resources = Array.from({ length: n }, (_, i) => `  r${i}:\n    fields: { title: string }\n`);
      writeFileSync(path, `name: t\nversion: 1.0.0\nevents: {}\nresources:\n${resources.join('')}`);
      const files = await shapedFiles(path);
      const index = files.find((f) => f.path.endsWith('/index.ts')) ?? expect.fail('no index.ts');
      expect(index.formatted).toBe(true);
      await expectAsPrettier(files);
    },
  );

  /** names and values of every length around the width, quotes in them, relations created under others */
  const name = fc.stringMatching(/^[a-z][a-z0-9]{0,45}$/);
  const definition = fc
    .record({
      parent: name,
      child: name,
      field: name,
      refField: name,
      values: fc.uniqueArray(fc.stringMatching(/^[a-z '"][a-z0-9 '"]{0,30}$/), { minLength: 1, maxLength: 12 }),
      roles: fc.uniqueArray(fc.stringMatching(/^r[a-z0-9]{0,30}$/), { minLength: 1, maxLength: 6 }),
      description: fc.stringMatching(/^[a-zA-Z ,.]{0,200}$/),
      // how many more fields (the statements' unions and the writes' objects grow with them), an owner, events
      more: fc.integer({ min: 0, max: 14 }),
      owned: fc.boolean(),
      events: fc.boolean(),
      integer: fc.boolean(),
      // routes.ts and nested.ts: an update only in some states, read by fewer than update, a deprecation, links
      when: fc.boolean(),
      hidden: fc.boolean(),
      deprecated: fc.boolean(),
      linked: fc.boolean(),
    })
    .filter((d) => d.parent !== d.child && d.field !== d.refField);

  it('renders generated definitions as prettier formats them, or leaves them to prettier', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shape-'));
    let shaped = 0;
    let all = 0;
    await fc.assert(
      fc.asyncProperty(definition, async (d) => {
        const path = join(dir, 'd.yaml');
        writeFileSync(
          path,
          [
            'name: shapes',
            'version: 1.0.0',
            `auth: { roles: ${JSON.stringify(['admin', ...d.roles])} }`,
            ...(d.events ? ['events: {}'] : []),
            'resources:',
            `  xr${d.parent}:`,
            `    description: ${JSON.stringify(d.description)}`,
            ...(d.integer ? ['    id: integer'] : []),
            ...(d.owned ? [`    owner: o${d.field}`] : []),
            '    fields:',
            `      f${d.field}: { type: enum, values: ${JSON.stringify(d.values)}, default: ${JSON.stringify(d.values[0])} }`,
            ...(d.owned ? [`      o${d.field}: { type: string, readOnly: true }`] : []),
            ...Array.from({ length: d.more }, (_, n) => {
              const type = ['integer, default: 3', 'json', 'boolean, default: false', 'text', 'number, nullable: true'];
              return `      m${n}${d.field.slice(0, n * 3)}: { type: ${type[n % type.length]} }`;
            }),
            ...(d.deprecated ? [`    deprecated: { since: 2026-11-01, link: https://example.com/${d.field} }`] : []),
            ...(d.linked ? [`    relations: { zs${d.child}: { through: zr${d.child} } }`] : []),
            `    access:`,
            `      list: public`,
            `      read: ${d.hidden ? JSON.stringify(d.roles) : 'public'}`,
            `      create: ${JSON.stringify(d.roles)}`,
            `      update: ${d.when ? `{ access: authenticated, when: { f${d.field}: ${JSON.stringify(d.values.slice(0, 2))} } }` : 'authenticated'}`,
            `      delete: ${JSON.stringify(d.roles.slice(0, 1))}`,
            `  yr${d.child}:`,
            '    fields:',
            `      f${d.refField}Id: { type: ref, to: xr${d.parent}, required: true, onDelete: cascade }`,
            `      f${d.field}: { type: enum, values: ${JSON.stringify(d.values)}, nullable: true }`,
            ...(d.linked
              ? [
                  `  zs${d.child}:`,
                  '    fields: { title: string }',
                  `  zr${d.child}:`,
                  '    fields:',
                  `      xId: { type: ref, to: xr${d.parent}, required: true, onDelete: cascade }`,
                  `      zId: { type: ref, to: zs${d.child}, required: true, onDelete: cascade }`,
                  '    unique: [[xId, zId]]',
                ]
              : []),
            '',
          ].join('\n'),
        );
        const files = await shapedFiles(path);
        all += files.length;
        shaped += await expectAsPrettier(files);
      }),
      { numRuns: 80 },
    );
    // most are in shape: a check that gave up on every file would pass the property above
    expect(shaped).toBeGreaterThan(all / 2);
  });
});
