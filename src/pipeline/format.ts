import { availableParallelism } from 'node:os';
import * as oxc from '@prettier/plugin-oxc';
import prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../generate/project-files.js';
import { shareOut } from './format-pool.js';
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
 * Formats every emitted file with prettier, as the generated project's own .prettierrc.json says, but those that
 * `before` knows formatted already (see manifest.ts, formattedBefore). A large project is shared between this thread
 * and worker threads (format-pool.ts), the longest file first.
 */
export async function formatAll(
  rendered: readonly RenderedFile[],
  before: (file: RenderedFile) => string | undefined = () => undefined,
): Promise<RenderedFile[]> {
  const known = rendered.map(before);
  const todo = rendered.flatMap((f, i) => (known[i] === undefined ? [i] : []));
  const formatted = await formatEach(todo.map((i) => rendered[i] ?? fail(`no file ${i}`)));
  const result = rendered.map((f, i) => ({ ...f, content: known[i] ?? f.content }));
  todo.forEach((i, j) => {
    result[i] = formatted[j] ?? fail(`no file ${j}`);
  });
  return result;
}

async function formatEach(files: readonly RenderedFile[]): Promise<RenderedFile[]> {
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
  await shareOut(
    queue,
    threads - 1,
    async (i) => {
      formatted[i] = await format(file(i));
    },
    (i) => ({ path: file(i).path, content: file(i).content, parser: parserOf(file(i)), options: PRETTIER_OPTIONS }),
    (i, content) => {
      formatted[i] = { ...file(i), content };
    },
  );
  return formatted;
}

export async function format(file: RenderedFile): Promise<RenderedFile> {
  const parser = parserOf(file);
  if (parser === undefined) return file;
  const json = parser === 'json' ? prettierJson(file.content, PRETTIER_OPTIONS.printWidth) : undefined;
  if (json !== undefined) return { ...file, content: json };
  return { ...file, content: await prettier.format(file.content, { ...PRETTIER_OPTIONS, parser, plugins: [oxc] }) };
}

function fail(message: string): never {
  throw new Error(message);
}
