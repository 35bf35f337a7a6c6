import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Owner } from './plan.js';
import type { RenderedFile } from './render.js';

export type ChangeKind = 'create' | 'update' | 'unchanged' | 'keep';

export interface Change {
  path: string;
  owner: Owner;
  kind: ChangeKind;
  content: string;
}

export const MANIFEST = '.restsmith/manifest.json';

/** Compares what generate would write with what the target directory holds. */
export function compare(outDir: string, files: readonly RenderedFile[]): Change[] {
  return files.map((file) => {
    const target = join(outDir, file.path);
    if (!existsSync(target)) return { ...file, kind: 'create' };
    // user-owned files and migrations are created once and never rewritten
    if (file.owner !== 'generator') return { ...file, kind: 'keep' };
    return { ...file, kind: readFileSync(target, 'utf8') === file.content ? 'unchanged' : 'update' };
  });
}

/** Writes every created or updated file, each through a temporary file and a rename, then the manifest. */
export function apply(outDir: string, changes: readonly Change[], generatorVersion: string): void {
  for (const change of changes) {
    if (change.kind === 'create' || change.kind === 'update')
      writeAtomically(join(outDir, change.path), change.content);
  }
  writeAtomically(join(outDir, MANIFEST), manifest(changes, generatorVersion));
}

/** The record of what restsmith wrote: the hash of every generator-owned file, to tell hand edits apart. */
function manifest(changes: readonly Change[], generatorVersion: string): string {
  const files = Object.fromEntries(
    changes
      .filter((c) => c.owner === 'generator')
      .map((c) => [c.path, createHash('sha256').update(c.content).digest('hex')]),
  );
  return `${JSON.stringify({ generator: `restsmith ${generatorVersion}`, files }, null, 2)}\n`;
}

export function writeAtomically(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}
