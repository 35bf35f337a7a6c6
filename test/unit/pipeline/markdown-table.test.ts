import fc from 'fast-check';
import prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import { printTable } from '../../../src/pipeline/markdown-table.js';

const prettierOf = (text: string): Promise<string> =>
  prettier.format(text, { ...PRETTIER_OPTIONS, parser: 'markdown' });

describe('printTable', () => {
  it.each([
    [
      'the README’s table of requests',
      '| Request | Answer |\n| --- | --- |\n| `GET /r0` | 200 `{ "items": [...], "nextCursor": "..." }`: a page of r0 |\n| `GET /r0/{id}` | 200 the record, with `ETag` (`If-None-Match` → 304) |',
    ],
    ['a short column: three dashes at least', '| a | b |\n|-|-|\n| x | yy |\n'],
    ['an empty cell', '| a | b |\n| --- | --- |\n|  | y |\n'],
    ['a header alone', '| a | bbbb |\n| --- | --- |\n'],
  ])('prints %s as prettier does', async (_, text) => {
    const printed = printTable(text);
    expect(printed).toBeDefined();
    expect(printed).toBe(await prettierOf(text));
  });

  it.each([
    ['emphasis', '| a | b |\n| --- | --- |\n| *x* | y |\n'],
    ['an underscore', '| a | b |\n| --- | --- |\n| snake_case | y |\n'],
    ['a link', '| a | b |\n| --- | --- |\n| [x](http://x.test) | y |\n'],
    ['an escaped pipe', '| a | b |\n| --- | --- |\n| x \\| z | y |\n'],
    ['two spaces', '| a | b |\n| --- | --- |\n| x  z | y |\n'],
    ['HTML', '| a | b |\n| --- | --- |\n| <b>x</b> | y |\n'],
    ['a wide character', '| a | b |\n| --- | --- |\n| 表 | y |\n'],
    ['an aligned column', '| a | b |\n| :-- | --- |\n| x | y |\n'],
    ['a row short of a cell', '| a | b |\n| --- | --- |\n| x |\n'],
    ['no delimiter row', '| a | b |\n| x | y |\n'],
    ['a paragraph', 'text\n| a | b |\n| --- | --- |\n'],
    ['a code span with a space at its end', '| a | b |\n| --- | --- |\n| `x ` | y |\n'],
    // a reviewer's: characters wider or narrower than a column, line breaks, spans that are one to markdown, URLs
    ['a wide character in a code span', '| a |\n| - |\n| `表` |\n'],
    ['a combining accent in a code span', '| a |\n| - |\n| `e\u0301` |\n'],
    ['a tab in a code span', '| a |\n| - |\n| `a\tb` |\n'],
    ['a carriage return in a code span', '| a |\n| - |\n| `a\rb` |\n'],
    ['two code spans in a row', '| a |\n| - |\n| `x``y` |\n'],
    ['a URL before a code span', '| a |\n| - |\n| http://a.b/`x y` |\n'],
    ['a www address before a code span', '| a |\n| - |\n| www.a.b/`x` |\n'],
  ])('leaves %s to prettier', (_, text) => {
    expect(printTable(text)).toBeUndefined();
  });

  it('prints a table of any length (found by a reviewer: 130,000 rows overflowed the stack)', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => `| ${i} |`);
    expect(printTable(['| n |', '| - |', ...rows].join('\n'))?.split('\n')).toHaveLength(200_003);
  });

  it('prints what it prints of any table as prettier does, and leaves the rest to it', async () => {
    const anything = fc.stringMatching(/^[^|\\\n]{1,8}$/);
    const word = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9.,:;'"(){}/=+?!%^→…*_#<>&@~$[\]-]{1,8}$/),
      fc.constantFrom('http://a.b/', 'www.x.y', 'https://', '1.', '-', '+', '#'),
    );
    const code = fc.oneof(anything, fc.stringMatching(/^[^`|\\\n]{1,6}$/)).map((inner) => `\`${inner}\``);
    const cell = fc
      .array(fc.oneof(word, code, anything), { maxLength: 4 })
      .chain((words) => fc.constantFrom(' ', '', '  ').map((gap) => words.join(gap).trim()));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cell, cell), { minLength: 1, maxLength: 4 }), async (rows) => {
        const text = ['| a | b |', '| - | - |', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n') + '\n';
        const printed = printTable(text);
        if (printed !== undefined) expect(printed).toBe(await prettierOf(text));
      }),
      { numRuns: 600 },
    );
  });

  it('prints any table of plain cells as prettier does', async () => {
    const word = fc.stringMatching(/^[A-Za-z0-9.,:;'"(){}/=+?!%^→…-]{1,8}$/);
    const code = fc.stringMatching(/^[^`\s|\\]([^`|\\\n]{0,6}[^`\s|\\])?$/).map((inner) => `\`${inner}\``);
    // without a URL (`://`, `www.`): markdown makes a link of it, which printTable leaves to prettier
    const cell = fc
      .array(fc.oneof(word, code), { maxLength: 4 })
      .map((words) => words.join(' '))
      .filter((text) => !/:\/\/|www\./i.test(text));
    const table = fc
      .integer({ min: 1, max: 4 })
      .chain((columns) =>
        fc.tuple(
          fc.array(cell, { minLength: columns, maxLength: columns }),
          fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), { maxLength: 5 }),
          fc.array(fc.integer({ min: 1, max: 5 }), { minLength: columns, maxLength: columns }),
        ),
      );
    await fc.assert(
      fc.asyncProperty(table, async ([header, rows, dashes]) => {
        const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
        const text = [row(header), row(dashes.map((n) => '-'.repeat(n))), ...rows.map(row)].join('\n') + '\n';
        expect(printTable(text)).toBe(await prettierOf(text));
      }),
      { numRuns: 400 },
    );
  });
});
