import { createHash } from 'node:crypto';
import { formattingKey } from './fingerprint.js';

/** A chunk of a markdown file: its text, and whether it goes on the previous chunk's list (see markdownChunks). */
export interface MarkdownChunk {
  text: string;
  /** it starts inside a list: it follows the previous chunk on the next line, not after a blank line */
  continues: boolean;
}

/**
 * A markdown file cut into chunks that prettier formats one by one into the text it makes of the whole file, so that a
 * regeneration formats only the chunks whose text changed: the README of a 100-resource project is 150 KB of
 * markdown, the slowest text prettier formats for its size, and an edit of one resource changes a chunk or two.
 *
 * Prettier prints top-level blocks one blank line apart, each on its own, so formatted chunks of whole blocks joined
 * by a blank line are the formatted file (format.test.ts checks it on every example's README). A chunk may end at a
 * blank line where the next line starts a top-level block: outside a fenced code block and an HTML block, at the
 * first column, not a list item nor what would open front matter (a blank line between list items, or before an
 * item's indented continuation, leaves them one list). Of those lines, a heading starts a chunk, and
 * otherwise one line in CUT_EVERY, picked by a hash of its own text: where a chunk starts depends only on the text
 * there, so an edit moves no other chunk's bounds. A file with a block the cutter does not follow is one chunk.
 *
 * A long list is cut too, between two of its items (see plainList): prettier prints each item of a tight list on its
 * own, one line after the other, and its markers depend only on what comes before the list (`-`, or `*` after
 * another list), which for such a list is not a list. Prettier's time grows faster than the length of a list (a
 * list of 130 lines took 110 ms, of 16 lines 5 ms).
 */
export function markdownChunks(text: string): MarkdownChunk[] {
  const lines = text.split('\n');
  if (FRONT_MATTER.test(text) || lines.some((line) => UNFOLLOWED.test(line)))
    return text.trim() === '' ? [] : [{ text, continues: false }];
  const chunks: MarkdownChunk[] = [];
  let start = 0;
  let continues = false;
  const cut = (end: number, next: number, nextContinues: boolean) => {
    chunks.push({ text: lines.slice(start, end).join('\n'), continues });
    start = next;
    continues = nextContinues;
  };
  let inside: RegExp | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (inside !== undefined) {
      if (inside.test(line)) inside = undefined;
      continue;
    }
    if (PLAIN_ITEM.test(line)) {
      // a run of plain items opens no block and starts no chunk: it is passed over whole, cut between items or not
      let last = i;
      while (PLAIN_ITEM.test(lines[last + 1] ?? '')) last++;
      if (plainList(lines, i, last)) {
        for (let item = i + 1; item <= last; item++) if (picked(lines[item] ?? '')) cut(item, item, true);
      }
      i = last;
      continue;
    }
    inside = opening(line);
    const next = lines[i + 1];
    const atTable = next?.startsWith('|') === true || lines[i - 1]?.startsWith('|') === true;
    if (line === '' && next !== undefined && startsChunk(next, atTable)) cut(i, i + 1, false);
  }
  cut(lines.length, lines.length, false);
  return chunks.filter((chunk) => chunk.text.trim() !== '');
}

/**
 * What is between two formatted chunks of the file at `path`: in markdown a line feed, for one blank line between
 * them (each ends with a line feed), or a line feed alone before a chunk that continues a list (the one before it is
 * kept without its own: see format.ts); in JSON nothing (each chunk of the OpenAPI document starts with its comma:
 * json-chunks.ts). The formatted file is its chunks joined by it, and the next run cuts them out of it by it.
 */
export const chunkSeparator = (path: string): string => (path.endsWith('.json') ? '' : '\n');

/** Formatted chunks as the formatted file (chunkSeparator). */
export const joinChunks = (path: string, formatted: readonly string[]): string => formatted.join(chunkSeparator(path));

/**
 * Whether the run of plain items (PLAIN_ITEM) from `first` to `last` is a list that may be cut between its items.
 * It may when it is a list of two or more one-line `- ` items, with no blank line between them, that starts the text
 * or follows a block that is not a list (a paragraph, a heading, a table, …: lines at the first column, none a list
 * item, after a blank line or the text's start), and that ends the text or is followed by a blank line and a line at
 * the first column that does not start a list item (a loose list, or an item's continuation, would be the same list).
 * Each item's text starts with a letter, a digit, a backtick (not a fence), `[` or `(`: not a list, a heading, a
 * quote or a fence.
 */
function plainList(lines: readonly string[], first: number, last: number): boolean {
  if (last === first) return false;
  // what comes before: blank lines, then a block of lines at the first column, none a list item
  let above = first - 1;
  while (above >= 0 && lines[above] === '') above--;
  for (; above >= 0 && lines[above] !== ''; above--) {
    const line = lines[above] ?? '';
    if (!/^\S/.test(line) || LIST_ITEM.test(line)) return false;
  }
  // what comes after: nothing, or a blank line and a line at the first column that is not a list item
  let below = last + 1;
  if (below < lines.length && lines[below] !== '') return false;
  while (below < lines.length && lines[below] === '') below++;
  const after = lines[below];
  return after === undefined || (/^\S/.test(after) && !LIST_ITEM.test(after));
}

/** a one-line `- ` item whose text is a paragraph: not a nested list, a heading, a quote, HTML or a fence */
const PLAIN_ITEM = /^- (?!`{3}|\d{1,9}[.)](?:\s|$))[A-Za-z0-9`[(]/;

/**
 * What the cutter does not follow, and leaves the file whole for: a math block (`$$`), an HTML block of the kinds
 * that reach over blank lines but a comment (`<?…?>`, `<!DOCTYPE …>`, CDATA), a fence inside a list item or a quote
 * (indented, or after `>`), a line of backticks with a backtick after them (not a fence), and prettier-ignore
 * comments (they reach over the next block, or a range); nor front matter (a file that starts with `---` or `+++`
 * holds it up to the next such line, blank lines included). The README's own blocks are none of these; text from a
 * definition is escaped (`md` in render.ts), its line breaks made spaces.
 */
const UNFOLLOWED =
  /^[ \t]*(?:\$\$|<[?!](?!--)|>.*(?:`{3}|~{3}))|^[ \t]+(?:`{3}|~{3})|^ {0,3}`{3,}[^`]*`|prettier-ignore/;

/** One line in this many of those that may start a chunk starts one: a chunk is then a few KB of a large README. */
const CUT_EVERY = 8;

const LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
const HEADING = /^#{1,6}(?:\s|$)/;

/** a file's or a chunk's first line: `---` or `+++` there would open front matter */
const FRONT_MATTER = /^(?:---|\+\+\+)/;

/** prettier prints a thematic break `***` when it is a file's first block, `---` after another */
const THEMATIC_BREAK = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/** prettier prints link reference definitions one after the other with no blank line between them */
const DEFINITION = /^\[[^\]]*\]:/;

/**
 * Whether `line`, after a blank line, starts a chunk: a line that may (it opens a top-level block, see above) does when
 * it is a heading, when it starts or follows a table (`atTable`: a table is a chunk of its own, printed without prettier
 * by markdown-table.ts where it can be: prettier takes longer over a table than over other text of its size), or
 * when it is picked by its text.
 */
const startsChunk = (line: string, atTable = false): boolean =>
  /^\S/.test(line) &&
  !LIST_ITEM.test(line) &&
  !FRONT_MATTER.test(line) &&
  !THEMATIC_BREAK.test(line) &&
  !DEFINITION.test(line) &&
  (HEADING.test(line) || atTable || picked(line));

/**
 * The end of the block `line` opens when that block may hold blank lines, or fences that are not fences: a code fence
 * (closed by a fence of the same character, at least as long), an HTML comment, `<pre>`, `<script>`, `<style>` or
 * `<textarea>` (closed by their end tag), any other HTML block (closed by a blank line). Undefined for any other line.
 */
function opening(line: string): RegExp | undefined {
  const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
  if (fence !== undefined) return new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
  if (/^ {0,3}<!--/.test(line)) return /-->/.test(line.slice(line.indexOf('<!--') + 4)) ? undefined : /-->/;
  const tag = /^ {0,3}<(pre|script|style|textarea)(?:\s|>|$)/i.exec(line)?.[1];
  if (tag !== undefined) return new RegExp(`</${tag}>`, 'i').test(line) ? undefined : new RegExp(`</${tag}>`, 'i');
  return /^ {0,3}<\/?[a-z]/i.test(line) ? /^\s*$/ : undefined;
}

/**
 * Whether a line is one in CUT_EVERY picked to start a chunk, by a hash of its text: FNV-1a, its bits mixed by
 * MurmurHash3's finaliser (FNV's low bits alone repeat over lines that differ by a digit or two).
 */
function picked(line: string): boolean {
  let hash = fnv1a(line);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) % CUT_EVERY === 0;
}

/** FNV-1a, 32 bits: a cheap, stable hash of a line. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** What identifies a chunk's formatted text (fingerprint.ts, formattingKey): 128 bits of it. */
export const chunkKey = (chunk: string): string => formattingKey(chunk).slice(0, 32);

/**
 * The key of each chunk: a chunk followed by one that continues its list is kept without its last line feed
 * (joinChunks), and its key says so with a `+` after it: the same text followed by a blank line is another chunk.
 */
export const chunkKeys = (chunks: readonly MarkdownChunk[]): string[] =>
  chunks.map(({ text }, n) => chunkKey(text) + (chunks[n + 1]?.continues === true ? '+' : ''));

/**
 * What a formatted chunk is checked against when it is cut out of the file: 64 bits of SHA-256 of its text and the
 * key of what it was formatted from (a record of another chunk's text under this key does not match).
 */
export const formattedHash = (key: string, text: string): string =>
  createHash('sha256').update(`${key}\n`).update(text).digest('hex').slice(0, 16);
