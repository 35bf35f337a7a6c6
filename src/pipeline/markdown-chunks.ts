import { createHash } from 'node:crypto';
import { formattingKey } from './fingerprint.js';

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
 */
export function markdownChunks(text: string): string[] {
  const lines = text.split('\n');
  if (lines.some((line) => UNFOLLOWED.test(line))) return text.trim() === '' ? [] : [text];
  const chunks: string[] = [];
  let start = 0;
  let inside: RegExp | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (inside !== undefined) {
      if (inside.test(line)) inside = undefined;
      continue;
    }
    inside = opening(line);
    const next = lines[i + 1];
    if (line === '' && next !== undefined && startsChunk(next)) {
      chunks.push(lines.slice(start, i).join('\n'));
      start = i + 1;
    }
  }
  chunks.push(lines.slice(start).join('\n'));
  return chunks.filter((chunk) => chunk.trim() !== '');
}

/** Formatted chunks as the formatted file: one blank line between them (each ends with a line feed). */
export const joinChunks = (formatted: readonly string[]): string => formatted.join('\n');

/**
 * What the cutter does not follow, and leaves the file whole for: a math block (`$$`), an HTML block of the kinds
 * that reach over blank lines but a comment (`<?…?>`, `<!DOCTYPE …>`, CDATA), a fence inside a list item or a quote
 * (indented, or after `>`), a line of backticks with a backtick after them (not a fence), and prettier-ignore
 * comments (they reach over the next block, or a range). The README's own blocks are none of these; text from a
 * definition is escaped (`md` in render.ts) but for `$` and line breaks.
 */
const UNFOLLOWED =
  /^[ \t]*(?:\$\$|<[?!](?!--)|>.*(?:`{3}|~{3}))|^[ \t]+(?:`{3}|~{3})|^ {0,3}`{3,}[^`]*`|prettier-ignore/;

/** One line in this many of those that may start a chunk starts one: a chunk is then a few KB of a large README. */
const CUT_EVERY = 8;

const LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
const HEADING = /^#{1,6}(?:\s|$)/;

/** a chunk's first line: `---` or `+++` there would open front matter */
const FRONT_MATTER = /^(?:---|\+\+\+)/;

const startsChunk = (line: string): boolean =>
  /^\S/.test(line) &&
  !LIST_ITEM.test(line) &&
  !FRONT_MATTER.test(line) &&
  (HEADING.test(line) || fnv1a(line) % CUT_EVERY === 0);

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

/** FNV-1a, 32 bits: a cheap, stable hash of a line. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** What identifies a chunk's formatted text (fingerprint.ts, formattingKey): 128 bits of it. */
export const chunkKey = (chunk: string): string => formattingKey(chunk).slice(0, 32);

/**
 * What a formatted chunk is checked against when it is cut out of the file: 64 bits of SHA-256 of its text and the
 * key of what it was formatted from (a record of another chunk's text under this key does not match).
 */
export const formattedHash = (key: string, text: string): string =>
  createHash('sha256').update(`${key}\n`).update(text).digest('hex').slice(0, 16);
