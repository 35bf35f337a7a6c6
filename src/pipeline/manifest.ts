import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { isProjectPath } from './paths.js';
import type { Snapshot } from '../schema/snapshot.js';

/**
 * What restsmith wrote into a project, committed with it: the hash of every generator-owned file (to tell hand
 * edits apart), the migrations written so far, and the data model they lead to (to compute the next one).
 */
export interface Manifest {
  generator: string;
  /** the hash of what decided the last run's output (restsmith's version, the definition): a no-op run skips all work */
  input?: string;
  files: Record<string, string>;
  /** the hash of each user-owned file as the last run left it (null: absent) */
  userFiles?: Record<string, string | null>;
  migrations: string[];
  /** handlers files kept out of compilation: orphaned (no action left), or orphaned and then deleted */
  orphanFiles?: string[];
  model: Snapshot;
}

export const MANIFEST = '.restsmith/manifest.json';

export const hash = (content: string): string => createHash('sha256').update(content).digest('hex');

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
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
