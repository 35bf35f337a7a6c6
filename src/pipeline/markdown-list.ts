import { plain } from './markdown-table.js';

/**
 * A chunk of a tight list printed in prettier's layout, without prettier: an edit changes a line or two of the
 * README's lists (the filters through relations name the fields of the resources around), and prettier's markdown,
 * loaded for them alone, took 50 ms of a one-field edit.
 *
 * Prettier prints each item of a tight list (proseWrap `preserve`) as `- ` and its text, one a line, when the list is
 * the first of its text (each chunk is formatted alone: markdown-chunks.ts). This prints only lists whose items'
 * text prettier prints as it is written (markdown-table.ts, `plain`) and starts with a letter or a code span: no other
 * block can start there (a nested list, a heading, a quote, a thematic break). Anything else is left to prettier
 * (undefined). markdown-list.test.ts holds the result to prettier's own on random lists.
 */
export function printList(text: string): string | undefined {
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  return lines.every((line) => ITEM.test(line) && plain(line.slice(2))) ? `${lines.join('\n')}\n` : undefined;
}

/** an item: a dash, a space, then a letter or a backtick */
const ITEM = /^- [A-Za-z`]/;

/**
 * A chunk of one line that opens with a strong span, as the README's access section has one a resource (the path in
 * double asterisks, then its owners), printed as prettier prints it: as it is, when the span's text (no space at
 * either end) and what follows it are plain (markdown-table.ts). A hundred resources made a hundred calls of
 * prettier's markdown, 130 ms, for nothing. Anything else is left to prettier (undefined); markdown-list.test.ts
 * holds the result to prettier's own on random lines.
 */
export function printStrongLine(text: string): string | undefined {
  const line = text.endsWith('\n') ? text.slice(0, -1) : text;
  const strong = STRONG.exec(line);
  if (strong === null) return undefined;
  const [, inside = '', after = ''] = strong;
  return plain(inside) && plain(after) ? `${line}\n` : undefined;
}

/** `**`, text with no `*` and no space at either end, `**`, then the rest of the line */
const STRONG = /^\*\*([^*\s](?:[^*\n]*[^*\s])?)\*\*([^*\n]*)$/;
