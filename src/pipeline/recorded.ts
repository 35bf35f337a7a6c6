import { createHash } from 'node:crypto';
import { chunkRecords, chunksDigest, CHUNKED, cutChunks, type Cut } from './chunk-records.js';
import type { Manifest } from './manifest.js';
import { chunkSeparator } from './markdown-chunks.js';
import { Remembered } from './remembered.js';
import type { RenderedFile } from './render.js';

/** Whether a file on disk is the one the manifest records: by the hash of its text, or of its chunks' records. */

export const hash = (content: string): string => createHash('sha256').update(content).digest('hex');

/** hash(content) of the file at `path`, remembered (remembered.ts): a file's text is hashed in several steps of a run. */
const contents = new Remembered(hash);
export const contentHash = (path: string, content: string): string => contents.of(path, content);

/**
 * What the manifest records of a generator-owned file as this run formatted it: a file in chunks by the hash of its
 * chunks' records (chunk-records.ts), any other by the hash of its text.
 */
export const writtenHash = (file: RenderedFile): string =>
  file.chunks === undefined ? contentHash(file.path, file.content) : chunksDigest(chunkRecords(file.chunks));

/** The last cut of each path (recordedChunks), for the text and records it was made of: one a file and run. */
const cuts = new Map<string, { content: string; recorded: string; records: unknown; chunks: Cut | undefined }>();

/**
 * The chunks of `content`, the file at `path` on disk, when the manifest records it in chunks (CHUNKED) and it cuts
 * into them: it is then the file the last run wrote. Undefined otherwise.
 */
export function recordedChunks(manifest: Manifest, path: string, content: string): Cut | undefined {
  const recorded: unknown = manifest.files[path];
  if (typeof recorded !== 'string' || !recorded.startsWith(CHUNKED)) return undefined;
  const records = manifest.chunks?.[path];
  const last = cuts.get(path);
  if (last?.content === content && last.recorded === recorded && last.records === records) return last.chunks;
  const chunks =
    Array.isArray(records) && chunksDigest(records as string[]) === recorded
      ? cutChunks(content, records, chunkSeparator(path))
      : undefined;
  cuts.set(path, { content, recorded, records, chunks });
  return chunks;
}

/**
 * Whether `content`, the generator-owned file at `path` on disk, is the file the last run wrote, as `manifest`
 * records it: a file in chunks when it cuts into the chunks recorded (chunk-records.ts), any other (or one recorded
 * by a restsmith from before) when it has the hash recorded.
 */
export function isAsRecorded(manifest: Manifest, path: string, content: string): boolean {
  const recorded: unknown = manifest.files[path];
  // a manifest edited by hand may hold anything: what is not a hash matches no file
  if (typeof recorded !== 'string') return false;
  return recorded.startsWith(CHUNKED)
    ? recordedChunks(manifest, path, content) !== undefined
    : contentHash(path, content) === recorded;
}
