import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import type { Api } from '../model.js';
import { snapshotOf, type Snapshot } from '../schema/snapshot.js';
import { VERSION } from '../version.js';
import type { Change } from './compare.js';
import { formattingKey, generatorFingerprint } from './fingerprint.js';
import { isProjectPath, projectFile, projectReader } from './paths.js';
import { PRETTIER_OPTIONS } from '../generate/project-files.js';
import type { Known } from './format.js';
import { prettierJsonOfStringified } from './json-text.js';
import { chunkSeparator } from './markdown-chunks.js';
import { chunkRecords, cutChunks, type Cut } from './chunk-records.js';
import { contentHash, hash, isAsRecorded, recordedChunks, writtenHash } from './recorded.js';
import { Remembered } from './remembered.js';
import type { RenderedFile } from './render.js';

/**
 * What restsmith wrote into a project, committed with it: the hash of every generator-owned file (to tell hand
 * edits apart), the migrations written so far, and the data model they lead to (to compute the next one).
 */
export interface Manifest {
  generator: string;
  /** the hash of what decided the last run's output (restsmith's version, the definition): a no-op run skips all work */
  input?: string;
  files: Record<string, string>;
  /**
   * the hash of each generator-owned file as rendered, before formatting (with restsmith's version): a file rendered
   * the same next time, and not edited since, is the file on disk, and is not formatted again
   */
  rendered?: Record<string, string>;
  /**
   * the key of what each generator-owned file rendered from a resource's view was rendered from (render.ts,
   * renderKey): a file of the same key next time, and not edited since, is the file on disk, and is not rendered again
   */
  keys?: Record<string, string>;
  /**
   * the chunks each generator-owned markdown file was formatted in (markdown-chunks.ts), in order, as
   * `key:length:hash`: the key of the chunk as rendered, the length and hash of its formatted text in the file. A
   * chunk rendered the same next time is cut out of the file (when it has that hash), not formatted again
   */
  chunks?: Record<string, string[]>;
  /** the hash of each user-owned file as the last run left it (null: absent) */
  userFiles?: Record<string, string | null>;
  migrations: string[];
  /** handlers files kept out of compilation: orphaned (no action left), or orphaned and then deleted */
  orphanFiles?: string[];
  /** package.json as restsmith wrote it, its own entries only: what the next run merges against (package-merge.ts) */
  package?: Record<string, unknown>;
  model: Snapshot;
}

export const MANIFEST = '.restsmith/manifest.json';

export { contentHash, hash, isAsRecorded, writtenHash } from './recorded.js';

export function readManifest(outDir: string): Manifest | undefined {
  const path = join(outDir, MANIFEST);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`${path} is not valid JSON (${(error as Error).message}): restore it from version control`);
  }
  if (!isManifest(parsed)) throw new UserError(`${path} is not a restsmith manifest: restore it from version control`);
  const listed = [...Object.keys(parsed.files), ...Object.keys(parsed.userFiles ?? {}), ...(parsed.orphanFiles ?? [])];
  const outside = listed.find((p) => typeof p !== 'string' || !isProjectPath(p));
  if (outside !== undefined) {
    throw new UserError(
      `${path} lists "${outside}", which is not a path inside the project: restore it from version control`,
    );
  }
  return parsed;
}

function isManifest(value: unknown): value is Manifest {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    typeof m.files === 'object' &&
    m.files !== null &&
    Array.isArray(m.migrations) &&
    (m.orphanFiles === undefined || Array.isArray(m.orphanFiles)) &&
    typeof m.model === 'object' &&
    m.model !== null &&
    Array.isArray((m.model as Record<string, unknown>).tables)
  );
}

export function manifestContent(manifest: Manifest): string {
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  // in prettier's shape, as every other file: `npx prettier --check .` in the project passes
  return prettierJsonOfStringified(text, PRETTIER_OPTIONS.printWidth) ?? text;
}

/**
 * The manifest a run leaves, and the no-op fast path it allows next time: when nothing that decides the output
 * changed, the next run renders nothing.
 */

/** What decides the output besides the project's own files: restsmith's code (fingerprint.ts), the definition and its name. */
export function inputHash(source: string, definition: string): string {
  return hash(`${generatorFingerprint()}\n${source}\n${definition}`);
}

/**
 * The fast path of a no-op run: the same input as last time, every generator-owned file as it was written, and
 * every user-owned file as it was then (a user-owned file decides stubs and orphans). Nothing to render.
 */
export function upToDate(outDir: string, manifest: Manifest, input: string): boolean {
  if (manifest.input !== input || manifest.userFiles === undefined) return false;
  const read = projectReader(outDir);
  const same = (path: string, recorded: string | null): boolean => {
    const current = read(path);
    return (current === undefined ? null : contentHash(path, current)) === recorded;
  };
  const written = (path: string): boolean => {
    const current = read(path);
    return current !== undefined && isAsRecorded(manifest, path, current);
  };
  const handlersDir = join(outDir, 'src/handlers');
  const handlers = existsSync(handlersDir) ? readdirSync(handlersDir).map((f) => `src/handlers/${f}`) : [];
  return (
    Object.keys(manifest.files).every(written) &&
    Object.entries(manifest.userFiles).every(([path, recorded]) => same(path, recorded)) &&
    handlers.every((path) => path in (manifest.userFiles ?? {}))
  );
}

const renderedKeys = new Remembered(formattingKey);

/**
 * The key of a rendered file's text (fingerprint.ts, formattingKey), remembered: formattedBefore and nextManifest both
 * need it; for a file not rendered again (render.ts, renderOrKnown), the last run's.
 */
const renderedHash = (file: RenderedFile): string => file.renderedAs ?? renderedKeys.of(file.path, file.content);

/**
 * What need not be formatted: a generator-owned file rendered exactly as last time, when the file on disk is still
 * what that run wrote (formatting it again would give the same text; a file rendered from the same key as last time
 * is not even rendered again: render.ts, renderOrKnown), or a user-owned file or migration that exists
 * (never rewritten: compare keeps it as it is); and the chunks of a markdown file that were rendered the same, cut
 * out of the file as that run wrote it. Only what changed goes through prettier, so that a small edit of a large
 * definition regenerates in a fraction of a cold run.
 */
export function formattedBefore(read: (path: string) => string | undefined, manifest: Manifest | undefined): Known {
  const unedited = (path: string): string | undefined => {
    const content = manifest?.files[path] === undefined ? undefined : read(path);
    return content !== undefined && manifest !== undefined && isAsRecorded(manifest, path, content)
      ? content
      : undefined;
  };
  const cutFiles = new Map<string, Cut | null>();
  /** the chunks of the file at `path` on disk, cut as recorded; undefined when it is not as the last run wrote it */
  const cutOf = (path: string): Cut | undefined => {
    if (!cutFiles.has(path)) {
      const recorded = manifest?.chunks?.[path];
      const content = recorded === undefined ? undefined : unedited(path);
      // cut once: a file recorded in chunks was cut to tell it is unedited
      const cut =
        content === undefined || manifest === undefined
          ? undefined
          : (recordedChunks(manifest, path, content) ?? cutChunks(content, recorded, chunkSeparator(path)));
      cutFiles.set(path, cut ?? null);
    }
    return cutFiles.get(path) ?? undefined;
  };
  return {
    file: (file) => {
      if (file.owner !== 'generator') return read(file.path);
      return manifest?.rendered?.[file.path] === renderedHash(file) ? unedited(file.path) : undefined;
    },
    rendered: (path, key) => {
      const renderedAs = manifest?.keys?.[path] === key ? manifest.rendered?.[path] : undefined;
      const text = renderedAs === undefined ? undefined : unedited(path);
      return text === undefined || renderedAs === undefined ? undefined : { text, renderedAs };
    },
    chunk: (path, key) => cutOf(path)?.byKey.get(key),
    chunks: (path) => {
      const records = cutOf(path)?.records;
      return records === undefined || records.length === 0 ? undefined : records;
    },
  };
}

/** What a no-op run reports: every file as it was. */
export function unchangedFiles(manifest: Manifest): Change[] {
  return [
    ...Object.keys(manifest.files).map((path): Change => ({ path, owner: 'generator', kind: 'unchanged' })),
    ...Object.entries(manifest.userFiles ?? {})
      .filter(([, recorded]) => recorded !== null)
      .map(([path]): Change => ({ path, owner: 'user', kind: 'keep' })),
  ];
}

/** What the manifest records of this run. */
export interface RunOutcome {
  outDir: string;
  api: Api;
  /** inputHash of this run */
  input: string;
  files: readonly RenderedFile[];
  /** the same files as rendered, before formatting */
  rendered: readonly RenderedFile[];
  changes: readonly Change[];
  migrations: string[];
  orphanFiles: string[];
  /** user-owned files orphaned by this run, by path */
  orphans: ReadonlyMap<string, unknown>;
  /** the entries of package.json restsmith owns */
  packageJson: Record<string, unknown>;
}

/** The manifest this run leaves: hashes of every file as written, the migrations, the data model. */
export function nextManifest(run: RunOutcome): Manifest {
  const { outDir, files, changes, orphanFiles } = run;
  const chunked = files.filter((f) => f.owner === 'generator' && f.chunks !== undefined);
  return {
    generator: `restsmith ${VERSION}`,
    // a stub the user must add by hand keeps the next run from taking the no-op fast path
    ...(!changes.some((c) => c.kind === 'manual') && { input: run.input }),
    userFiles: userFileHashes(
      outDir,
      [...files.filter((f) => f.owner !== 'generator').map((f) => f.path), ...run.orphans.keys()],
      changes,
    ),
    files: Object.fromEntries(files.filter((f) => f.owner === 'generator').map((f) => [f.path, writtenHash(f)])),
    rendered: Object.fromEntries(
      run.rendered.filter((f) => f.owner === 'generator').map((f) => [f.path, renderedHash(f)]),
    ),
    keys: Object.fromEntries(
      run.rendered.flatMap((f) => (f.owner === 'generator' && f.key !== undefined ? [[f.path, f.key]] : [])),
    ),
    ...(chunked.length > 0 && {
      chunks: Object.fromEntries(chunked.map((f) => [f.path, chunkRecords(f.chunks ?? [])])),
    }),
    migrations: run.migrations,
    ...(orphanFiles.length > 0 && { orphanFiles }),
    package: run.packageJson,
    model: snapshotOf(run.api),
  };
}

/** The hash of each user-owned file as this run leaves it (null: it does not exist). */
function userFileHashes(
  outDir: string,
  paths: readonly string[],
  changes: readonly Change[],
): Record<string, string | null> {
  return Object.fromEntries(
    paths.map((path) => {
      const written = changes.find(
        (c) =>
          c.path === path &&
          c.content !== undefined &&
          (c.kind === 'create' || c.kind === 'grow' || c.kind === 'rename'),
      );
      const target = projectFile(outDir, path);
      const content = written?.content ?? (existsSync(target) ? readFileSync(target, 'utf8') : undefined);
      return [path, content === undefined ? null : contentHash(path, content)];
    }),
  );
}
