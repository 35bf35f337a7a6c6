import { createHash } from 'node:crypto';
import { formattedHash } from './markdown-chunks.js';

/**
 * What the manifest records of a file written in chunks (the README, the OpenAPI document: markdown-chunks.ts,
 * json-chunks.ts): each chunk as `key:length:hash`, in order, and as the file's own hash the hash of those records,
 * marked CHUNKED. The chunks, each of the length and hash recorded, joined by the file's separator, are the file: a
 * file on disk is the one written when it cuts into those chunks. So a regeneration never hashes such a file whole: it
 * cuts the chunks it keeps out of the file on disk (checking each), and records the chunks it wrote by the hashes it
 * has (at 100 resources the OpenAPI document is 12 MB, and hashing it whole, twice, and comparing it with the last
 * one took 40 ms of a one-field edit). A manifest written before records the file's hash: that is still checked.
 */
export const CHUNKED = 'chunks:';

/** A chunk of a formatted file, as the file's RenderedFile says it (format.ts). */
export interface FormattedChunk {
  key: string;
  length: number;
  hash: string;
}

/** The records of a file's chunks, as the manifest keeps them. */
export const chunkRecords = (chunks: readonly FormattedChunk[]): string[] =>
  chunks.map((c) => `${c.key}:${c.length}:${c.hash}`);

/** What the manifest records as the hash of a file of these chunk records. */
export const chunksDigest = (records: readonly string[]): string =>
  CHUNKED + createHash('sha256').update(records.join('\n')).digest('hex');

/** A file's formatted chunks, cut out of its text as recorded (cutChunks). */
export interface Cut {
  /** each chunk's text and hash by its key (chunks of the same text have the same key) */
  byKey: ReadonlyMap<string, { text: string; hash: string }>;
  /** every chunk in order, as recorded */
  records: readonly FormattedChunk[];
}

/**
 * A file's formatted chunks, cut out of its text by the lengths recorded, `between` each two (the separator of its
 * kind: chunkSeparator); undefined when the text is not those chunks: a record that is no list of chunks, a chunk whose
 * text has not the hash recorded, another separator, or text left over (a file or manifest edited by hand).
 */
export function cutChunks(content: string, recorded: unknown, between: string): Cut | undefined {
  if (!Array.isArray(recorded)) return undefined;
  const byKey = new Map<string, { text: string; hash: string }>();
  const records: FormattedChunk[] = [];
  let at = 0;
  for (const [n, entry] of (recorded as unknown[]).entries()) {
    if (n > 0) {
      if (!content.startsWith(between, at)) return undefined;
      at += between.length;
    }
    const [key, length, hash] = typeof entry === 'string' ? entry.split(':') : [];
    const end = at + Number(length);
    if (key === undefined || !/^\d+$/.test(length ?? '') || end > content.length) return undefined;
    const text = content.slice(at, end);
    if (hash === undefined || formattedHash(key, text) !== hash) return undefined;
    byKey.set(key, { text, hash });
    records.push({ key, length: text.length, hash });
    at = end;
  }
  return at === content.length ? { byKey, records } : undefined;
}
