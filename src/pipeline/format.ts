import { availableParallelism } from 'node:os';
import { PRETTIER_OPTIONS } from '../generate/project-files.js';
import { FormatPool, type FormatJob } from './format-pool.js';
import { prettierJson, prettierJsonOfStringified } from './json-text.js';
import { printConstants } from '../generate/literal.js';
import { chunkKeys, formattedHash, joinChunks, markdownChunks } from './markdown-chunks.js';
import { printTable } from './markdown-table.js';
import { printList, printStrongLine } from './markdown-list.js';
import type { JsonChunk } from './json-chunks.js';
import type { RenderedFile } from './render.js';
import type { FormattedChunk } from './chunk-records.js';

/**
 * TypeScript is parsed by oxc (native, prettier's own plugin): it prints exactly what the typescript parser
 * prints, about twice as fast. The printing is prettier's, as everywhere.
 */
const PARSERS: Record<string, string> = { ts: 'oxc-ts', json: 'json', md: 'markdown' };

const parserOf = (file: RenderedFile): string | undefined => PARSERS[file.path.split('.').pop() ?? ''];

/** From this many resources (five or six files each), a first run is formatted in worker threads. */
const LARGE_PROJECT = 16;

/** From this many files to format, a regeneration is formatted in worker threads. */
const MANY_FILES = 80;

/**
 * Format workers, leaving a core to this thread and V8's own threads; none on two cores. There, one thread formatting
 * already keeps both busy (V8 compiles prettier's hot code and collects garbage in threads of its own), and a worker
 * compiles prettier again: measured on a 100-resource project, two workers took as long as this thread alone, with
 * a quarter more CPU.
 */
const workers = (): number => Math.min(availableParallelism() - 1, 4);

/**
 * Format workers for the first run of a large project, started once the definition is read, before anything is
 * rendered (they load prettier meanwhile); undefined where this thread formats (see `workers`).
 */
export function startPool(resources: number, firstRun: boolean): FormatPool | undefined {
  return firstRun && resources >= LARGE_PROJECT && workers() >= 2 ? new FormatPool(workers()) : undefined;
}

/** What the last run formatted and this one need not format again (manifest.ts, formattedBefore). */
export interface Known {
  /** a file's text, when it is the text it would be formatted into */
  file(file: RenderedFile): string | undefined;
  /**
   * the formatted text of a chunk of `path` (markdown-chunks.ts, json-chunks.ts) by its key, when the last run had it,
   * and its hash as the manifest records it (formattedHash)
   */
  chunk(path: string, key: string): { text: string; hash: string } | undefined;
  /**
   * a generator-owned file's text and the key of its rendered text, when the last run rendered it from what has this
   * key (render.ts, renderKey)
   */
  rendered(path: string, key: string): { text: string; renderedAs: string } | undefined;
  /**
   * the chunks of a file written in chunks, as recorded, when the file on disk is as the last run wrote it: a file
   * taken whole from disk (`file`) keeps them, so that the next run still cuts it
   */
  chunks(path: string): readonly FormattedChunk[] | undefined;
}

const NOTHING_KNOWN: Known = {
  file: () => undefined,
  chunk: () => undefined,
  rendered: () => undefined,
  chunks: () => undefined,
};

/** A file (or chunk) to format, and where its formatted text goes. */
interface Todo {
  job: FormatJob;
  put: (text: Promise<string>) => void;
}

/** A chunk to format: its key, and its formatted text once known (and its hash, when the last run's). */
interface Chunk {
  key: string;
  text: string | Promise<string>;
  hash?: string;
}

/**
 * Formats every emitted file with prettier, as the generated project's own .prettierrc.json says, but those `known`
 * has (see manifest.ts, formattedBefore). A generator-owned markdown file is formatted chunk by chunk, and only its
 * chunks `known` has not (markdown-chunks.ts); each formatted file says its chunks, for the next run. Prettier runs
 * in the worker threads of `pool` when there is one, and this thread prints the JSON meanwhile (json-text.ts): a
 * multi-megabyte OpenAPI document in milliseconds.
 */
export async function formatAll(
  rendered: readonly RenderedFile[],
  known: Known = NOTHING_KNOWN,
  pool?: FormatPool,
): Promise<RenderedFile[]> {
  const texts: (string | Promise<string> | undefined)[] = [];
  const chunked = new Map<number, Chunk[]>();
  /** the chunks recorded of a document taken whole from disk, kept for the next run */
  const kept = new Map<number, readonly FormattedChunk[]>();
  const todo: Todo[] = [];
  const files = [...rendered];
  files.forEach((file, i) => {
    const parser = parserOf(file);
    if (parser === 'markdown' && file.owner === 'generator') {
      chunked.set(i, chunksOf(file, known, todo));
      return;
    }
    const before = file.json === undefined ? undefined : known.file(file);
    const recorded = before === undefined ? undefined : known.chunks(file.path);
    if (recorded !== undefined) kept.set(i, recorded);
    if (file.json !== undefined && before === undefined) {
      const chunks = jsonChunksOf(file.path, file.json.chunks, known);
      if (chunks !== undefined) {
        chunked.set(i, chunks);
        return;
      }
      // a document whose chunks are not all printed here is printed whole, here or by prettier
      file = files[i] = { ...file, content: file.json.whole(), stringified: true };
    }
    texts[i] = file.formatted ? file.content : (before ?? known.file(file) ?? printed(file));
    if (texts[i] === undefined && parser !== undefined && parser !== 'json') {
      todo.push({ job: jobOf(file, parser), put: (text) => (texts[i] = text) });
    }
  });
  // a regeneration that changes much is formatted in workers too, started now
  const own = pool === undefined && todo.length >= MANY_FILES && workers() >= 2 ? new FormatPool(workers()) : undefined;
  const where = pool ?? own;
  try {
    // prettier's files first: workers format them while this thread prints the JSON
    const formatted = prettier(
      todo.map(({ job }) => job),
      where,
    );
    todo.forEach(({ put }, j) => put(formatted[j] ?? fail(`no text for ${todo[j]?.job.path}`)));
    const parts = new Map<number, string[]>();
    files.forEach((file, i) => {
      const chunks = chunked.get(i);
      if (chunks !== undefined) {
        texts[i] = Promise.all(chunks.map((c) => c.text)).then((texts) => {
          parts.set(i, texts);
          return joinChunks(file.path, texts);
        });
      }
      texts[i] ??=
        parserOf(file) === 'json' ? (jsonText(file) ?? prettier([jobOf(file, 'json')], where)[0]) : file.content;
    });
    const contents = await Promise.all(texts);
    return files.map((file, i) => {
      const content = contents[i] ?? fail(`no text for ${file.path}`);
      const chunks = chunked.get(i);
      const formatted = parts.get(i) ?? [];
      if (chunks === undefined) return { ...file, content, ...(kept.has(i) && { chunks: kept.get(i) }) };
      return {
        ...file,
        content,
        chunks: chunks.map((c, n) => {
          const text = formatted[n] ?? '';
          return { key: c.key, length: text.length, hash: c.hash ?? formattedHash(c.key, text) };
        }),
      };
    });
  } finally {
    await own?.close();
  }
}

/**
 * A generator-owned markdown file's chunks (markdown-chunks.ts): each one `known` has is taken from it, the others
 * join `todo`, each to be formatted on its own. A chunk followed by one that continues its list is kept without its
 * last line feed (joinChunks).
 */
function chunksOf(file: RenderedFile, known: Known, todo: Todo[]): Chunk[] {
  const cut = markdownChunks(file.content);
  const keys = chunkKeys(cut);
  return cut.map(({ text }, n): Chunk => {
    const beforeList = cut[n + 1]?.continues === true;
    const chunk: Chunk = { key: keys[n] ?? fail(`no key for ${file.path} (part ${n + 1})`), text };
    const before = known.chunk(file.path, chunk.key);
    // a table (a chunk of its own) or a list prettier would print as it is, but for a table's padding, is printed here
    const printed = before === undefined ? (printTable(text) ?? printList(text) ?? printStrongLine(text)) : undefined;
    if (before !== undefined) Object.assign(chunk, before);
    else if (printed !== undefined) chunk.text = beforeList ? printed.replace(/\n$/, '') : printed;
    else
      todo.push({
        job: { ...jobOf({ ...file, content: text }, 'markdown'), path: `${file.path} (part ${n + 1})` },
        put: (formatted) => (chunk.text = beforeList ? formatted.then((t) => t.replace(/\n$/, '')) : formatted),
      });
    return chunk;
  });
}

/**
 * The chunks of the OpenAPI document (json-chunks.ts): each one `known` has is taken from it, the others printed now;
 * undefined when one cannot be printed here.
 */
function jsonChunksOf(path: string, chunks: readonly JsonChunk[], known: Known): Chunk[] | undefined {
  const texts: Chunk[] = [];
  for (const { key, text } of chunks) {
    const before = known.chunk(path, key);
    const printed = before?.text ?? text();
    if (printed === undefined) return undefined;
    texts.push({ key, text: printed, ...(before !== undefined && { hash: before.hash }) });
  }
  return texts;
}

/** A file of a shaped template with its constants printed in prettier's layout (render.ts, SHAPED), if it can be. */
const printed = (file: RenderedFile): string | undefined =>
  file.constants === undefined ? undefined : printConstants(file.content, file.constants);

/** One file formatted here, without workers. */
export async function format(file: RenderedFile): Promise<RenderedFile> {
  const [formatted] = await formatAll([file]);
  return formatted ?? fail(`no text for ${file.path}`);
}

const jobOf = (file: RenderedFile, parser: string): FormatJob => ({
  path: file.path,
  content: file.content,
  parser,
  // the path tells prettier a .ts file is not TSX: `<T>(…) =>`, not `<T,>(…) =>` (what prettier --check expects)
  options: {
    ...(parser === 'oxc-ts' && !mayEmbed(file.content) ? WITHOUT_EMBEDS : PRETTIER_OPTIONS),
    filepath: file.path,
  },
});

/**
 * Prettier formats code of other languages inside template literals of a TypeScript file: tagged css, styled…,
 * gql or graphql, html, md or markdown, after a GraphQL or HTML comment, in a JSX css prop or an Angular Component.
 * A file without a backtick, or without any of these names, has none, and prettier is told not to look for them:
 * the same text, a tenth sooner (its search walks the whole syntax tree).
 */
const EMBEDS =
  /(?<![.\w$])(?:css|styled|gql|graphql|html|md|markdown|Component|jsx)(?![\w$])|\.extend\b|\/\* (?:GraphQL|HTML) \*\//;

const mayEmbed = (text: string): boolean => text.includes('`') && EMBEDS.test(text);

const WITHOUT_EMBEDS = { ...PRETTIER_OPTIONS, embeddedLanguageFormatting: 'off' } as const;

/** JSON printed directly, not parsed when render stringified it; undefined where prettier's rules are not these. */
const jsonText = (file: RenderedFile): string | undefined =>
  file.stringified
    ? prettierJsonOfStringified(file.content, PRETTIER_OPTIONS.printWidth)
    : prettierJson(file.content, PRETTIER_OPTIONS.printWidth);

const prettier = (jobs: readonly FormatJob[], pool: FormatPool | undefined): Promise<string>[] =>
  pool === undefined ? inThread(jobs) : pool.format(jobs);

/**
 * Prettier in this thread, one file after the other (the next one starts when the last is done: not hundreds of
 * syntax trees at once), loaded on first use: a run that formats in workers, or nothing, never loads it.
 */
function inThread(jobs: readonly FormatJob[]): Promise<string>[] {
  let previous: Promise<unknown> = Promise.resolve();
  return jobs.map((job) => {
    const formatted = previous.then(async () => {
      const [{ default: prettier }, oxc] = await Promise.all([import('prettier'), import('@prettier/plugin-oxc')]);
      return prettier.format(job.content, { ...job.options, parser: job.parser, plugins: [oxc] });
    });
    // after a failure, the files left fail with it, unformatted: the run stops at once
    previous = formatted;
    return formatted;
  });
}

function fail(message: string): never {
  throw new Error(message);
}
