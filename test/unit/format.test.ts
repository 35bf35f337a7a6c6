import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import prettier from 'prettier';
import * as oxc from '@prettier/plugin-oxc';
import { compilerOptions, PRETTIER_OPTIONS } from '../../src/generate/project-files.js';
import { RUNTIME, runtimeFiles } from '../../src/pipeline/plan.js';
import { format, formatAll } from '../../src/pipeline/format.js';
import { FormatPool } from '../../src/pipeline/format-pool.js';
import { prettierJson, prettierJsonOfStringified } from '../../src/pipeline/json-text.js';
import { render, type RenderedFile } from '../../src/pipeline/render.js';
import { chunkKeys, markdownChunks } from '../../src/pipeline/markdown-chunks.js';
import { formattedBefore, hash, type Manifest } from '../../src/pipeline/manifest.js';
import { plan } from '../../src/pipeline/plan.js';
import { readDefinition } from '../../src/pipeline/read-definition.js';

describe('formatAll', () => {
  const project: RenderedFile[] = Array.from({ length: 120 }, (_, i) => ({
    path: i % 3 === 0 ? `src/f${i}.ts` : i % 3 === 1 ? `data/f${i}.json` : `notes/f${i}.txt`,
    owner: 'generator',
    content:
      i % 3 === 0
        ? `export const value${i} = {a:${i},   b:"x${i}"}`
        : i % 3 === 1
          ? `{"n":${i},"list":[1,2,3]}`
          : `left as it is ${i}  `,
  }));

  it('formats in this thread one file after the other, as one at a time would', async () => {
    const together = await formatAll(project);
    const oneByOne = await Promise.all(project.map(format));
    expect(together).toEqual(oneByOne);
    expect(together[0]?.content).toBe("export const value0 = { a: 0, b: 'x0' };\n");
    expect(together[2]?.content).toBe('left as it is 2  ');
  });

  it('formats in worker threads exactly as in this thread, in order, a file given twice included', async () => {
    const pool = new FormatPool(2);
    try {
      pool.format(project.slice(0, 6).map((file) => ({ ...file, parser: 'oxc-ts', options: PRETTIER_OPTIONS })));
      const inWorkers = await formatAll(project, undefined, pool);
      expect(inWorkers).toEqual(await formatAll(project));
    } finally {
      await pool.close();
    }
  });

  it('fails on a file prettier cannot parse with its message, in this thread and in workers', async () => {
    const broken: RenderedFile = { path: 'src/broken.ts', owner: 'generator', content: 'export const = ;' };
    await expect(formatAll([broken])).rejects.toThrow(SyntaxError);
    const pool = new FormatPool(1);
    try {
      await expect(formatAll([...project.slice(0, 9), broken], undefined, pool)).rejects.toThrow(
        /^prettier failed on src\/broken\.ts: /,
      );
    } finally {
      await pool.close();
    }
  });

  it('takes the text a file had when it was rendered the same before, and formats only the others', async () => {
    const files: RenderedFile[] = ['a', 'b', 'c'].map((name) => ({
      path: `src/${name}.ts`,
      owner: 'generator',
      content: `export const ${name} = {x:1}`,
    }));
    const known = new Map([['src/b.ts', 'what the last run wrote\n']]);
    const formatted = await formatAll(files, {
      file: (file) => known.get(file.path),
      chunk: () => undefined,
      rendered: () => undefined,
      chunks: () => undefined,
    });
    expect(formatted.map((f) => f.content)).toEqual([
      'export const a = { x: 1 };\n',
      'what the last run wrote\n',
      'export const c = { x: 1 };\n',
    ]);
  });

  // prettier is told not to look for other languages in a file that cannot have them: the same text either way
  it.each([
    ['html', 'const page = html`<div><p>hi</p>   </div>`;', true],
    ['css', 'const rule = css`a{color:red}`;', true],
    ['styled', 'const Box = styled.div`color:red;`;', true],
    ['graphql', 'const q = gql`query { a }`;', true],
    ['a GraphQL comment', 'const q = /* GraphQL */ `query { a }`;', true],
    ['markdown', 'const doc = md`# Title\n\n*   item`;', true],
    ['none: SQL', "const sql = `SELECT *\n  FROM t WHERE a = 'x'`;", false],
    ['none: an html member', 'const x = page.html`<p>a</p>   `;', false],
  ])('formats code in template literals as prettier does: %s', async (_, text, embeds) => {
    const options = { ...PRETTIER_OPTIONS, parser: 'oxc-ts', plugins: [oxc] };
    const expected = await prettier.format(text, options);
    const unlooked = await prettier.format(text, { ...options, embeddedLanguageFormatting: 'off' });
    expect(expected !== unlooked).toBe(embeds);
    expect((await format({ path: 'src/t.ts', owner: 'generator', content: text })).content).toBe(expected);
  });
});

describe('markdown, formatted chunk by chunk', () => {
  const whole = (text: string): Promise<string> => prettier.format(text, { ...PRETTIER_OPTIONS, parser: 'markdown' });
  const readme = (content: string): RenderedFile => ({ path: 'README.md', owner: 'generator', content });
  const filler = (n: number): string =>
    Array.from({ length: n }, (_, i) => `Paragraph ${i}   with *emphasis*  and a [link]( https://x.test/${i} ).`).join(
      '\n\n',
    );
  /**
   * every block that holds blank lines, or must stay beside its neighbour, that the cutter follows, between paragraphs
   * that may start chunks (those it does not follow are the reviewer's cases below)
   */
  const TRICKY = [
    '# Title',
    filler(20),
    '```sh\nnpm   test\n\n## not a heading\n\nParagraph 3 inside the fence\n```',
    filler(20),
    '<!--\na comment\n\nParagraph 1   over blank lines\n-->',
    filler(20),
    '<div>\n<p>an HTML block</p>\n</div>',
    '<pre>\nParagraph 2   kept as it is\n\n## not a heading either\n</pre>',
    filler(20),
    '- item one\n\n  continued   after a blank line\n\n- item two\n  * nested',
    // a loose list long enough that some of its items are lines picked by their text
    Array.from({ length: 40 }, (_, i) => `- item ${i + 3}`).join('\n\n'),
    '1. first\n\n1. second',
    '* another list\n* its items',
    filler(20),
    // a tight list of one-line items, long enough to be cut between its items, as the README lists relations
    `The relations:\n${relationList(60)}`,
    filler(20),
    '| request | answer |\n| --- | --- |\n| `GET /x` | 200 |',
    '---',
    'Setext heading\n---',
    filler(20),
  ].join('\n\n');

  const texts = (text: string) => markdownChunks(text).map((chunk) => chunk.text);

  it('cuts at top-level blocks only, at headings and at lines picked by their text', () => {
    expect(texts('# A\n\ntext\n\n## B\n\n- a\n\n- b\n')).toEqual(['# A\n\ntext', '## B\n\n- a\n\n- b\n']);
    expect(texts('```\n\n## in a fence\n```\n')).toEqual(['```\n\n## in a fence\n```\n']);
    // a table is a chunk of its own (markdown-table.ts prints it)
    expect(texts('text\n\n| a | b |\n| - | - |\n| x | y |\n\nmore\n\n- a\n')).toEqual([
      'text',
      '| a | b |\n| - | - |\n| x | y |',
      'more\n\n- a\n',
    ]);
    const chunks = markdownChunks(TRICKY);
    expect(chunks.length).toBeGreaterThan(4);
    // a chunk that continues a list follows the previous one on the next line
    const joined = chunks.map((c, n) => (n === 0 ? '' : c.continues ? '\n' : '\n\n') + c.text).join('');
    expect(joined.replace(/\n{2,}/g, '\n\n')).toBe(TRICKY.replace(/\n{2,}/g, '\n\n'));
    // no chunk begins inside a block that holds blank lines
    for (const chunk of chunks) {
      expect(chunk.text).not.toMatch(
        /^(?:Paragraph (?:3 inside|1 {3}over|2 {3}kept)|continued|## not|- item|1\. second)/,
      );
      expect(chunk.continues).toBe(chunk.text.startsWith('- `/r'));
    }
    expect(chunks.filter((c) => c.continues).length).toBeGreaterThan(2);
  });

  it('cuts a list between its items only when it is a tight list of one-line items after and before other blocks', () => {
    const list = relationList(60);
    const cut = (text: string) => markdownChunks(text).some((chunk) => chunk.continues);
    expect(cut(`# A\n\n${list}\n`)).toBe(true);
    expect(cut(`text\n${list}\n\nmore text\n`)).toBe(true);
    expect(cut(list)).toBe(true);
    // another list before it (its markers alternate), a lazy line of an item, a loose list, an item continued
    expect(cut(`* x\n\n${list}\n`)).toBe(false);
    expect(cut(`- x\nlazy\n${list}\n`)).toBe(false);
    expect(cut(`# A\n\n${list}\n\n- one more\n`)).toBe(false);
    expect(cut(`# A\n\n${list}\n\n  continued\n`)).toBe(false);
    expect(cut(`# A\n\n${list}\nlazy\n`)).toBe(false);
    // items that are not one paragraph each
    expect(cut(`# A\n\n${list.replace('- `/r7`', '- 1. `/r7`')}\n`)).toBe(false);
    expect(cut(`# A\n\n${list.replace('- `/r7`', '- ```')}\n`)).toBe(false);
  });

  it('formats into what prettier makes of the whole file: the examples’ READMEs and every tricky block', async () => {
    const texts = [TRICKY];
    for (const example of ['blog', 'clinic', 'library', 'tasks']) {
      const api = await readDefinition(`${import.meta.dirname}/../../examples/${example}.yaml`);
      const planned = plan(api, {
        source: `${example}.yaml`,
        migrations: [],
        orphanFiles: [],
        orphanHandlers: new Map(),
      });
      const file = planned.find((p) => p.path === 'README.md');
      texts.push(render(file ?? fail(), `${example}.yaml`).content);
    }
    for (const text of texts) {
      const [formatted] = await formatAll([readme(text)]);
      expect(formatted?.content).toBe(await whole(text));
      expect(formatted?.chunks?.length).toBe(markdownChunks(text).length);
    }
  });

  // a reviewer's cases: blocks the cutter must not cut inside, or must leave the file whole for
  it.each([
    ['fenceInfoBacktick', '# A\n\n```a` b\n\nx\n\n```\ncode\n\n# heading   here\n```\n'],
    ['math', '# A\n\n$$\na\n\n# b   c\n$$\n'],
    ['ignoreNext', '# A\n\n<!-- prettier-ignore -->\n\n# Keep    *this*   | a |\n'],
    ['ignoreNext2', '# A\n\n<!-- prettier-ignore -->\n\n| a | b |\n|-|-|\n| 1 | 2 |\n'],
    ['htmlDivFence', '# A\n\n<div>\n```\n</div>\n\ntext\n\n```\ncode\n\n# not   heading\n```\n'],
    ['refDef', "# A\n\nsee [foo] and [bar][foo]\n\n# B\n\n[foo]: http://example.com  'T'\n"],
    ['footnote', '# A\n\ntext[^1]\n\n# B\n\n[^1]: note\n'],
    ['setext', '# A\n\nfoo\n\n# B\n===\n'],
    ['listThenHeading', '# A\n\n- a\n\n- b\n\n# B\n\n- c\n'],
    ['lists', '# A\n\n- a\n* b\n\n# B\n'],
    // a reviewer's cases from a random search: no chunk may start at them
    ['definitions', `# A\n\n${Array.from({ length: 40 }, (_, i) => `[d${i}]: http://x.test/${i}`).join('\n\n')}\n`],
    ['thematicBreaks', `# A\n\n${['_____', '*********', '______  ', '_ _ _ _', '***'].join('\n\nText.\n\n')}\n`],
    ['frontMatter', `---\n\n${filler(20)}\n\n# H\n\n---\n`],
    ['frontMatterPlus', `+++\n\n${filler(20)}\n\n# H\n+++\n`],
    ['frontMatterList', `---\n\n${relationList(40)}\n\n---\n`],
    ['listAfterList', `# A\n\n* x\n\n${relationList(40)}\n`],
    ['listAfterOrdered', `# A\n\n1. x\n\n${relationList(40)}\n`],
    ['listAfterLazy', `# A\n\n* x\nlazy\n${relationList(40)}\n`],
    ['listLoose', `# A\n\n${relationList(40)}\n\n- last\n`],
    ['listThenTable', `text\n${relationList(40)}\n\n| a | b |\n| - | - |\n| x | y |\n`],
    ['listEscapes', `# A\n\n${relationList(40).replaceAll('(', '(*a*  _b_ \\_ <x> ')}\n`],
    ['listTasks', `# A\n\n${relationList(40).replaceAll('- `', '- [ ] `')}\n`],
    ['emptyChunk', '# A\n\n# B\n'],
    ['blockquote', '# A\n\n> a\n\n# B\n\n> b\n'],
    ['tildeInfo', '# A\n\n~~~ a~b\n\nx\n\n~~~\n'],
    ['liquid', '# A\n\n{% raw %}\n\n# B\n\n{% endraw %}\n'],
    ['htmlcomment', '# A\n\n<!-->\n\n# B\n\n-->\n'],
    ['cr', '# A\r\n\r\ntext\r\n\r\n# B\r\n'],
    ['nbsp', '# A\n\n\u00a0\n\n# B\n'],
    ['pi', '# A\n\n<?php\n\n# x   y\n?>\n'],
    ['decl', '# A\n\n<!DOCTYPE html\n\n# x   y\n>\n'],
    ['cdata', '# A\n\n<![CDATA[\n\n# x   y\n]]>\n'],
    [
      'titleMath',
      '<!-- Generated -->\n\n# Apiary\n\n$$\nbees\n\nThe apiary REST API.\n\n## Run it\n\n| a | b |\n| --- | --- |\n| x | yy |\n',
    ],
    [
      'versionTilde',
      '# A\n\n- x\n\n  ~~~\n\nThe API, version 1\n\n~~~\n, generated.\n\n## Run it\n\n| a | b |\n| --- | --- |\n| x | yy |\n',
    ],
  ])('formats as prettier formats the whole file: %s', async (_, text) => {
    const [formatted] = await formatAll([readme(text)]);
    expect(formatted?.content).toBe(await whole(text));
  });

  it('takes no chunk kept before the rest of its list for one followed by a blank line', async () => {
    const list = relationList(60).split('\n');
    const before = `# A\n\n${list.join('\n')}\n`;
    const [first] = await formatAll([readme(before)]);
    const manifest = {
      files: { 'README.md': hash(first?.content ?? '') },
      chunks: { 'README.md': first?.chunks?.map((c) => `${c.key}:${c.length}:${c.hash}`) },
    } as unknown as Manifest;
    const known = formattedBefore((path) => (path === 'README.md' ? first?.content : undefined), manifest);
    // the list shortened to the items of its first chunk: that chunk's text, now followed by a heading
    const items =
      markdownChunks(before)[0]
        ?.text.split('\n')
        .filter((line) => line.startsWith('- ')) ?? [];
    expect(items.length).toBeLessThan(list.length);
    const after = `# A\n\n${items.join('\n')}\n\n## After the list\n`;
    expect(markdownChunks(after)[0]?.text).toBe(markdownChunks(before)[0]?.text);
    const [again] = await formatAll([readme(after)], known);
    expect(again?.content).toBe(await whole(after));
  });

  it('formats only the chunks the last run did not have, and takes the others from the file it wrote', async () => {
    const [first] = await formatAll([readme(TRICKY)]);
    const manifest = {
      files: { 'README.md': hash(first?.content ?? '') },
      chunks: { 'README.md': first?.chunks?.map((c) => `${c.key}:${c.length}:${c.hash}`) },
    } as unknown as Manifest;
    const disk = (text: string) => (path: string) => (path === 'README.md' ? text : undefined);
    const chunks = markdownChunks(TRICKY);
    const keys = chunkKeys(chunks);
    const known = formattedBefore(disk(first?.content ?? ''), manifest);
    expect(keys.every((key) => known.chunk('README.md', key) !== undefined)).toBe(true);
    // one chunk edited: the others are cut out of the file (here marked, to tell them from formatted ones)
    const edited = TRICKY.replace('Paragraph 7 ', 'Paragraph   seven ');
    const marked = {
      ...known,
      chunk: (path: string, key: string) => {
        const before = known.chunk(path, key);
        return before && { ...before, text: before.text.replace(/^/, '<!-- kept -->\n') };
      },
    };
    const [again] = await formatAll([readme(edited)], marked);
    const kept = again?.content.match(/<!-- kept -->/g)?.length;
    expect(kept).toBe(chunks.length - 1);
    expect(again?.content.replaceAll('<!-- kept -->\n', '')).toBe(await whole(edited));
    // a file edited by hand since, or a record that does not add up to it: nothing is taken
    expect(formattedBefore(disk(`${first?.content}x`), manifest).chunk('README.md', keys[0] ?? '')).toBeUndefined();
    const short = { ...manifest, files: { 'README.md': hash('x\n') } } as Manifest;
    expect(formattedBefore(disk('x\n'), short).chunk('README.md', keys[0] ?? '')).toBeUndefined();
    // a record that is not what this run wrote (merged by hand, say): nothing is taken, nothing fails
    const entries = manifest.chunks?.['README.md'] ?? [];
    const [a = '', b = ''] = entries;
    const [keyA, lengthA = '0', hashA] = a.split(':');
    const [keyB, lengthB = '0', hashB] = b.split(':');
    const tampered: unknown[] = [
      {},
      42,
      [b, a, ...entries.slice(2)], // lengths out of order: the sum still adds up
      [`${keyB}:${lengthA}:${hashA}`, `${keyA}:${lengthB}:${hashB}`, ...entries.slice(2)], // keys swapped
      [`${keyA}:${Number(lengthA) - 3}:${hashA}`, `${keyB}:${Number(lengthB) + 3}:${hashB}`, ...entries.slice(2)],
    ];
    for (const record of tampered) {
      const bad = { ...manifest, chunks: { 'README.md': record } } as Manifest;
      const known = formattedBefore(disk(first?.content ?? ''), bad);
      expect(keys.some((key) => known.chunk('README.md', key) !== undefined)).toBe(false);
    }
  });
});

/** `n` one-line items as the README lists each resource's relations */
function relationList(n: number): string {
  return Array.from({ length: n }, (_, i) => `- \`/r${i}\`: parent (title, body), r${i + 1} (id,   title)`).join('\n');
}

function fail(): never {
  throw new Error('missing');
}

describe('JSON, printed in prettier’s shape without prettier', () => {
  const viaPrettier = async (value: unknown): Promise<string> =>
    prettier.format(JSON.stringify(value, null, 2), { ...PRETTIER_OPTIONS, parser: 'json' });
  /** both printers: from the text (parsed, checked) and from JSON.stringify's text as render makes it */
  const direct = (value: unknown): string | undefined => {
    const text = JSON.stringify(value, null, 2);
    const printed = prettierJson(text, 110);
    expect(prettierJsonOfStringified(`${text}\n`, 110)).toBe(printed);
    return printed;
  };
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
    ['strings and keys with brackets and commas', { 'k[0], x': ['[a, b]', '{c}', ']', '"[",'], z: [[']'], ['a, b']] }],
    // prettier spreads an array of two or more arrays (or objects) of two or more items each, fitting or not
    [
      'arrays of arrays of two',
      {
        a: [
          [1, 2],
          [3, 4],
        ],
        b: [
          ['x', 'y'],
          ['z', 'w'],
        ],
      },
    ],
    ['arrays of arrays of one, or mixed', { a: [[1], [2]], b: [[], [1, 2]], c: [[1, 2], 3], d: [[1, 2], {}] }],
    ['an array of arrays too long for a line', { a: [[long(40), long(40)], [long(30)]] }],
    ['empty members deep down', { a: [{ b: [[], {}, [[]]] }] }],
    // JSON.stringify writes 1e+23, prettier 1e23: an array that fits only without the + goes on one line
    ['numbers with an exponent', { a: 1e23, b: [1e21, -1.5e-7, 2e300], s: '1e+5 in a string', 'k1e+2': 1 }],
    ['an array that fits once its exponents lose their +', { k: [long(86), 1e21, 1e22] }],
  ])('%s', async (_, value) => {
    expect(direct(value)).toBe(await viaPrettier(value));
  });

  it('gives way to prettier where its rules differ: compact text, long arrays of numbers, non-ASCII near the edge', () => {
    expect(prettierJson('{"a":1}', 110)).toBeUndefined();
    expect(direct({ n: Array.from({ length: 60 }, (_, i) => i) })).toBeUndefined();
    expect(direct({ n: [[1, 2], Array.from({ length: 60 }, (_, i) => -i)] })).toBeUndefined();
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

  it('is every file of runtime/src and runtime/test: listed in RUNTIME, a starter of a user-owned file, or a stand-in saying so', () => {
    const files = [
      ...[...filesUnder(join(runtime, 'src'))].map((f) => `src/${f}`),
      ...[...filesUnder(join(runtime, 'test'))].map((f) => `test/${f}`),
      ...[...filesUnder(join(runtime, 'scripts'))].map((f) => `scripts/${f}`),
    ].sort();
    expect(files).toEqual([...RUNTIME, 'src/main.ts', 'src/hooks.ts', 'src/routes.ts', ...STAND_INS].sort());
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

  it('is copied in prettier’s shape, its header on: projects never format it again', async () => {
    const files = runtimeFiles().map((file) => render(file, 'some-api.yaml'));
    expect(files.length).toBeGreaterThan(60);
    for (const file of files) {
      expect(file.formatted, file.path).toBe(true);
      const { formatted: _, ...unmarked } = file;
      expect((await format(unmarked)).content, file.path).toBe(file.content);
    }
    expect((await formatAll([{ ...(files[0] ?? fail()), content: 'left   as it is' }]))[0]?.content).toBe(
      'left   as it is',
    );
  });

  it('is formatted in the repo as projects format it (runtime/.prettierrc.json is PRETTIER_OPTIONS)', () => {
    const options = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../runtime/.prettierrc.json'), 'utf8'),
    ) as object;
    expect(options).toEqual(PRETTIER_OPTIONS);
  });
});
