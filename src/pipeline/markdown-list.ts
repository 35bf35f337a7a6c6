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
