import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import * as oxc from '@prettier/plugin-oxc';
import prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../generate/project-files.js';
import type { RenderedFile } from './render.js';

/**
 * TypeScript is parsed by oxc (native, prettier's own plugin): it prints exactly what the typescript parser
 * prints, about twice as fast. The printing is prettier's, as everywhere.
 */
const PARSERS: Record<string, string> = { ts: 'oxc-ts', json: 'json', md: 'markdown' };

/** Below this many files, starting workers costs more than it saves. */
const WORKER_THRESHOLD = 80;

const parserOf = (file: RenderedFile): string | undefined => PARSERS[file.path.split('.').pop() ?? ''];

/** Formats every emitted file with prettier, as the generated project's own .prettierrc.json says. */
export async function formatAll(files: readonly RenderedFile[]): Promise<RenderedFile[]> {
  const workers = Math.min(availableParallelism(), 4);
  if (files.length < WORKER_THRESHOLD || workers < 2) return Promise.all(files.map(format));
  const shares = Array.from({ length: workers }, (_, w) => files.filter((_, i) => i % workers === w));
  const formatted = await Promise.all(shares.map(formatInWorker));
  return files.map((_, i) => formatted[i % workers]?.[Math.floor(i / workers)] ?? fail(`no formatted file ${i}`));
}

export async function format(file: RenderedFile): Promise<RenderedFile> {
  const parser = parserOf(file);
  if (parser === undefined) return file;
  return { ...file, content: await prettier.format(file.content, { ...PRETTIER_OPTIONS, parser, plugins: [oxc] }) };
}

async function formatInWorker(files: readonly RenderedFile[]): Promise<RenderedFile[]> {
  const worker = new Worker(new URL('../../bin/format-worker.mjs', import.meta.url));
  try {
    const jobs = files.map((f) => ({ content: f.content, parser: parserOf(f) ?? null }));
    const reply = await new Promise<{ contents?: string[]; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage({ jobs: jobs.filter((j) => j.parser !== null), options: PRETTIER_OPTIONS });
    });
    if (reply.error !== undefined || reply.contents === undefined) throw new Error(`prettier failed: ${reply.error}`);
    const contents = reply.contents;
    let next = 0;
    return files.map((f, i) =>
      jobs[i]?.parser === null ? f : { ...f, content: contents[next++] ?? fail('missing output') },
    );
  } finally {
    await worker.terminate();
  }
}

function fail(message: string): never {
  throw new Error(message);
}
