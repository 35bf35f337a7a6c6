import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Change } from './compare.js';
import { MANIFEST, manifestContent, type Manifest } from './manifest.js';
import { projectFile, projectFiles } from './paths.js';

/**
 * Writes a run's changes: every file through a temporary file and a rename, so that a run killed midway leaves
 * each file old or new (never half-written), and the manifest last, so that the next run finishes the job.
 * Conflicts are written only when forced.
 */
export function apply(outDir: string, changes: readonly Change[], manifest: Manifest, force: boolean): void {
  // every path is checked before the first is touched: a run refused for one writes nothing
  const file = projectFiles(outDir);
  const targets = changes.map((change) => file(change.path));
  const sources = changes.map((change) => (change.from === undefined ? undefined : file(change.from)));
  const manifestPath = file(MANIFEST);
  mkdirSync(join(outDir, dirname(MANIFEST)), { recursive: true });
  for (const [i, change] of changes.entries()) {
    const target = targets[i] ?? projectFile(outDir, change.path);
    const forced = change.kind === 'conflict' && force;
    if (change.kind === 'delete' || (forced && change.content === undefined)) {
      rmSync(target, { force: true });
      removeEmptyFolders(dirname(target), outDir);
      afterWrite();
    } else if (
      change.content !== undefined &&
      (forced || ['create', 'update', 'grow', 'rename'].includes(change.kind))
    ) {
      writeAtomically(target, change.content);
    }
    // a file moved: written at its new path first, so that a run killed in between leaves it somewhere
    const source = sources[i];
    if (change.kind === 'rename' && source !== undefined) {
      rmSync(source, { force: true });
      removeEmptyFolders(dirname(source), outDir);
      afterWrite();
    }
  }
  writeAtomically(manifestPath, manifestContent(manifest));
}

/** Removes the folders a deletion left empty, up to (not including) the project's own. */
function removeEmptyFolders(folder: string, outDir: string): void {
  const inside = (path: string): boolean => {
    const rel = relative(resolve(outDir), path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  let current = resolve(folder);
  while (inside(current) && readdirSync(current).length === 0) {
    rmdirSync(current);
    current = dirname(current);
  }
}

export function writeAtomically(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
  afterWrite();
}

/**
 * A test hook: RESTSMITH_CRASH_AFTER_WRITES=N kills the process after its N-th write, as a power cut would,
 * so that tests can prove a later run completes the job. Unset, it does nothing.
 */
let writes = 0;
function afterWrite(): void {
  writes += 1;
  const limit = Number(process.env.RESTSMITH_CRASH_AFTER_WRITES);
  if (Number.isInteger(limit) && limit > 0 && writes >= limit) process.kill(process.pid, 'SIGKILL');
}
