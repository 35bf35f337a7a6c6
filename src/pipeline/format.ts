import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import * as oxc from '@prettier/plugin-oxc';
import prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../generate/project-files.js';
import { prettierJson } from './json-text.js';
import type { RenderedFile } from './render.js';

/**
 * TypeScript is parsed by oxc (native, prettier's own plugin): it prints exactly what the typescript parser
 * prints, about twice as fast. The printing is prettier's, as everywhere.
 */
const PARSERS: Record<string, string> = { ts: 'oxc-ts', json: 'json', md: 'markdown' };

/** Below this many files, starting workers costs more than it saves. */
const WORKER_THRESHOLD = 80;

const parserOf = (file: RenderedFile): string | undefined => PARSERS[file.path.split('.').pop() ?? ''];

/**
 * Formats every emitted file with prettier, as the generated project's own .prettierrc.json says. A large project
 * is shared between this thread and worker threads, one file at a time, the longest first: no thread is left
 * with one big file (the OpenAPI document, the README) while the others wait.
 */
export async function formatAll(files: readonly RenderedFile[]): Promise<RenderedFile[]> {
  const threads = Math.min(availableParallelism(), 4);
  if (files.length < WORKER_THRESHOLD || threads < 2) return Promise.all(files.map(format));
  const formatted = [...files];
  const file = (i: number): RenderedFile => files[i] ?? fail(`no file ${i}`);
  const withParser = (parser: (p: string | undefined) => boolean): number[] =>
    files.flatMap((f, i) => (parser(parserOf(f)) ? [i] : []));
  // JSON first, here: it is printed directly (see json-text.ts), in milliseconds
  for (const i of withParser((p) => p === 'json')) formatted[i] = await format(file(i));
  const queue = withParser((p) => p !== undefined && p !== 'json').sort(
    (a, b) => file(b).content.length - file(a).content.length,
  );
  // a larger young generation: prettier allocates much and briefly (fewer scavenges)
  const workers = Array.from(
    { length: threads - 1 },
    () => new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 64 } }),
  );
  try {
    await Promise.all([
      takeAll(queue, async (i) => {
        formatted[i] = await format(file(i));
      }),
      ...workers.map((worker) => drain(worker, queue, files, formatted)),
    ]);
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return formatted;
}

export async function format(file: RenderedFile): Promise<RenderedFile> {
  const parser = parserOf(file);
  if (parser === undefined) return file;
  const json = parser === 'json' ? prettierJson(file.content, PRETTIER_OPTIONS.printWidth) : undefined;
  if (json !== undefined) return { ...file, content: json };
  return { ...file, content: await prettier.format(file.content, { ...PRETTIER_OPTIONS, parser, plugins: [oxc] }) };
}

const WORKER_URL = new URL('../../bin/format-worker.mjs', import.meta.url);

/** Sends a worker the files of the queue, two at a time so that it never waits for its next one. */
async function drain(
  worker: Worker,
  queue: number[],
  files: readonly RenderedFile[],
  formatted: RenderedFile[],
): Promise<void> {
  const pending = new Map<number, (reply: { content?: string; error?: string }) => void>();
  worker.on('message', (reply: { index: number; content?: string; error?: string }) =>
    pending.get(reply.index)?.(reply),
  );
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  const send = async (index: number): Promise<void> => {
    const file = files[index] ?? fail(`no file ${index}`);
    const reply = await Promise.race([
      new Promise<{ content?: string; error?: string }>((resolve) => {
        pending.set(index, resolve);
        worker.postMessage({ index, content: file.content, parser: parserOf(file), options: PRETTIER_OPTIONS });
      }),
      failed,
    ]);
    if (reply.content === undefined) throw new Error(`prettier failed on ${file.path}: ${reply.error}`);
    formatted[index] = { ...file, content: reply.content };
  };
  await Promise.all([takeAll(queue, send), takeAll(queue, send)]);
}

/** Runs `work` on indexes taken from the shared `queue` until it is empty. */
async function takeAll(queue: number[], work: (index: number) => Promise<void>): Promise<void> {
  for (let i = queue.shift(); i !== undefined; i = queue.shift()) await work(i);
}

function fail(message: string): never {
  throw new Error(message);
}
