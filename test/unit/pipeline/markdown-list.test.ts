import fc from 'fast-check';
import prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import { printList, printStrongLine } from '../../../src/pipeline/markdown-list.js';

const prettierOf = (text: string): Promise<string> =>
  prettier.format(text, { ...PRETTIER_OPTIONS, parser: 'markdown' });

describe('printList', () => {
  it.each([
    [
      'the README’s filters through relations',
      '- `/r49`: parent (title, body), r50 (id, title, note1)\n- `/r51`: r52 (id)',
    ],
    ['one item', '- plain words, and `code` in them\n'],
  ])('prints %s as prettier does', async (_, text) => {
    const printed = printList(text);
    expect(printed).toBeDefined();
    expect(printed).toBe(await prettierOf(text));
  });

  it.each([
    ['a nested list', '- - x\n'],
    ['an ordered list inside', '- 1. x\n'],
    ['another marker', '* x\n'],
    ['an item continued on the next line', '- x\n  y\n'],
    ['a paragraph before it', 'text\n- x\n'],
    ['emphasis', '- *x*\n'],
    ['an underscore', '- snake_case\n'],
    ['a link', '- [x](http://x.test)\n'],
    ['a URL', '- see http://x.test\n'],
    ['two spaces', '- x  y\n'],
    ['a blank line between items', '- x\n\n- y\n'],
    ['a heading inside', '- # x\n'],
  ])('leaves %s to prettier', (_, text) => {
    expect(printList(text)).toBeUndefined();
  });

  it('prints what it prints of any list as prettier does, and leaves the rest to it', async () => {
    const word = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9.,:;'"(){}/=+?!%^→…*_#<>&@~$[\]-]{1,8}$/),
      fc.constantFrom('http://a.b/', 'www.x.y', '1.', '2)', '-', '+', '#', '>', '---', '==='),
    );
    const code = fc.stringMatching(/^[^`\n]{1,6}$/).map((inner) => `\`${inner}\``);
    const item = fc
      .array(fc.oneof(word, code), { minLength: 1, maxLength: 5 })
      .chain((words) => fc.constantFrom(' ', '', '  ').map((gap) => words.join(gap)));
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 4 }), async (items) => {
        const text = `${items.map((i) => `- ${i}`).join('\n')}\n`;
        const printed = printList(text);
        if (printed !== undefined) expect(printed).toBe(await prettierOf(text));
      }),
      { numRuns: 600 },
    );
  });

  it('prints any list of plain items as prettier does', async () => {
    const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9.,:;'"(){}/=+?!%^→…-]{0,7}$/);
    const code = fc.stringMatching(/^[^`\s|\\]([^`|\\\n]{0,6}[^`\s|\\])?$/).map((inner) => `\`${inner}\``);
    // without a URL (`://`, `www.`): markdown makes a link of it, which printList leaves to prettier
    const item = fc
      .array(fc.oneof(word, code), { minLength: 1, maxLength: 5 })
      .map((words) => words.join(' '))
      .filter((text) => !/:\/\/|www\./i.test(text));
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 4 }), async (items) => {
        const text = `${items.map((i) => `- ${i}`).join('\n')}\n`;
        const printed = printList(text);
        expect(printed).toBeDefined();
        expect(printed).toBe(await prettierOf(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('printStrongLine', () => {
  it.each([
    ['a resource of the README’s access section', '**/reading-lists**'],
    ['with its owners', '**/reviews** (owner: `readerId` or `authorId`)\n'],
    ['with its computed fields', '**/posts** (computed: `words`, valued in `src/computed/posts.ts`)\n'],
  ])('prints %s as prettier does', async (_, text) => {
    const printed = printStrongLine(text);
    expect(printed).toBeDefined();
    expect(printed).toBe(await prettierOf(text));
  });

  it.each([
    ['emphasis after it', '**/a** *x*\n'],
    ['a space inside, at its end', '**/a **\n'],
    ['an underscore', '**/a_b**\n'],
    ['a second line', '**/a**\nb\n'],
    ['two spaces after it', '**/a**  x\n'],
    ['a link after it', '**/a** [x](y)\n'],
    ['no closing', '**/a\n'],
  ])('leaves %s to prettier', (_, text) => {
    expect(printStrongLine(text)).toBeUndefined();
  });

  it('prints what it prints of any such line as prettier does, and leaves the rest to it', async () => {
    const part = fc.stringMatching(/^[A-Za-z0-9.,:;'"(){}/=+?!%^→…*_#<>&@~$[\]` -]{0,12}$/);
    let printed = 0;
    await fc.assert(
      fc.asyncProperty(part, part, async (inside, after) => {
        const text = `**${inside}**${after}`;
        const mine = printStrongLine(text);
        if (mine === undefined) return;
        printed += 1;
        expect(mine).toBe(await prettierOf(text));
      }),
      { numRuns: 600 },
    );
    // a printer that gave up on every line would pass the property above
    expect(printed).toBeGreaterThan(20);
  });
});
