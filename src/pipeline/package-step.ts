import type { Manifest } from './manifest.js';
import { mergePackageJson, previousPackage } from './package-merge.js';
import type { PlannedFile } from './plan.js';
import type { RenderedFile } from './render.js';

const PACKAGE = 'package.json';

/**
 * package.json through a run, the one file a run treats apart (SPEC §9): merged with the user's entries before it is
 * rendered (package-merge.ts), kept as it is on disk when it already holds what would be written (laid out as npm or
 * its user likes), its entries changed by hand given to compare, and restsmith's own entries to the manifest.
 */
export interface PackageStep {
  /** the plan, package.json in it holding the merged entries */
  planned: PlannedFile[];
  /** the formatted files, package.json as it is on disk when it holds what would be written */
  asWritten(files: readonly RenderedFile[]): RenderedFile[];
  /** the entries restsmith owns that were changed by hand, by file (compare's `merged`) */
  merged: ReadonlyMap<string, readonly string[]>;
  /** restsmith's own entries, which the manifest records */
  ownEntries: Record<string, unknown>;
}

export function packageStep(
  planned: readonly PlannedFile[],
  read: (path: string) => string | undefined,
  manifest: Manifest | undefined,
  force: boolean,
): PackageStep {
  const file = planned.find((p) => p.path === PACKAGE);
  const ownEntries = file !== undefined && 'json' in file ? (file.json as Record<string, unknown>) : {};
  const text = read(PACKAGE);
  const pkg = mergePackageJson(ownEntries, text, previousPackage(manifest, text), force);
  return {
    planned: planned.map((p) => (p === file ? { ...p, json: pkg.merged } : p)),
    asWritten: (files) =>
      pkg.asIs && text !== undefined
        ? files.map((f) => (f.path === PACKAGE ? { ...f, content: text } : f))
        : [...files],
    merged: new Map([[PACKAGE, pkg.conflicts]]),
    ownEntries,
  };
}
