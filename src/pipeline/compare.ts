import { isAsRecorded, writtenHash, type Manifest } from './manifest.js';
import type { Owner } from './plan.js';
import type { RenderedFile } from './render.js';

/**
 * What a run does to one file:
 * - create, update, unchanged, delete: generator-owned files (a file of a removed resource is deleted)
 * - keep: a user-owned file or migration that exists (never rewritten)
 * - grow: a user-owned file that gains stubs (every other byte kept)
 * - rename: a user-owned file of a renamed resource, moved from `from` to the new name (edited to compile there, and
 *   grown)
 * - manual: a user-owned file that lacks a stub restsmith cannot add (it does not parse): the user adds it
 * - conflict: a generator-owned file edited by hand since the last run; nothing is written unless --force
 * - orphan: a user-owned file whose resource or actions are gone; kept, and reported
 */
export type ChangeKind =
  'create' | 'update' | 'unchanged' | 'delete' | 'keep' | 'grow' | 'rename' | 'manual' | 'conflict' | 'orphan';

export interface Change {
  path: string;
  owner: Owner;
  kind: ChangeKind;
  /** what to write (create, update, grow, and a conflict forced over) */
  content?: string;
  note?: string;
  /** rename: the path the file moves from (removed once it is written at `path`) */
  from?: string;
}

export interface CompareInput {
  /** a file of the project as it is now (see projectReader); undefined when absent */
  read: (path: string) => string | undefined;
  files: readonly RenderedFile[];
  manifest: Manifest | undefined;
  /** new contents of user-owned files that gain stubs, by path */
  grown: ReadonlyMap<string, { text: string; note: string }>;
  /** user-owned files to report as orphaned, with why */
  orphans: ReadonlyMap<string, string>;
  /** user-owned files kept as they are, with what the user must do */
  notes: ReadonlyMap<string, string>;
  /** user-owned files that lack stubs restsmith cannot add */
  manual: ReadonlyMap<string, string>;
  /** user-owned files of renamed resources, by their new path: where they move from, and their text there */
  renamed?: ReadonlyMap<string, { from: string; text: string }>;
  /**
   * generator-owned files merged with the user's (package.json: see package-merge.ts), with the entries they changed
   * that restsmith owns: none, and the merged file is written whatever else it holds
   */
  merged?: ReadonlyMap<string, readonly string[]>;
}

export function compare(input: CompareInput): Change[] {
  const { read: current, files, manifest, grown, orphans, notes, manual } = input;
  const recorded = manifest?.files ?? {};
  const changes = files.map((file): Change => {
    const base = { path: file.path, owner: file.owner };
    const moved = input.renamed?.get(file.path);
    if (moved !== undefined) {
      const growth = grown.get(file.path);
      const note = [growth?.note, notes.get(file.path)].filter(Boolean).join('; ');
      const content = growth?.text ?? moved.text;
      return { ...base, kind: 'rename', from: moved.from, content, ...(note !== '' && { note }) };
    }
    const existing = current(file.path);
    if (existing === undefined) return { ...base, kind: 'create', content: file.content };
    if (file.owner !== 'generator') {
      const growth = grown.get(file.path);
      const note = notes.get(file.path);
      const byHand = manual.get(file.path);
      if (byHand !== undefined) return { ...base, kind: 'manual', note: byHand };
      if (growth !== undefined) {
        return { ...base, kind: 'grow', content: growth.text, note: [growth.note, note].filter(Boolean).join('; ') };
      }
      return { ...base, kind: 'keep', ...(note !== undefined && { note }) };
    }
    const conflicts = input.merged?.get(file.path);
    if (conflicts !== undefined && conflicts.length > 0) {
      const note = `restsmith's entries edited: ${conflicts.join(', ')}`;
      return { ...base, kind: 'conflict', content: file.content, note };
    }
    // a file in chunks is what this run made of it when it has the chunks recorded (chunk-records.ts): not compared whole
    // (compared whole when it does not cut as recorded: a manifest whose records were dropped by hand, say)
    const same =
      (file.chunks !== undefined &&
        manifest !== undefined &&
        recorded[file.path] === writtenHash(file) &&
        isAsRecorded(manifest, file.path, existing)) ||
      existing === file.content;
    if (same) return { ...base, kind: 'unchanged' };
    // merged with the user's entries, none of restsmith's edited: written, whatever else it holds
    if (conflicts !== undefined) return { ...base, kind: 'update', content: file.content };
    // unrecorded (not written by restsmith) or changed since it was written: edited by hand
    const edited = manifest === undefined || !isAsRecorded(manifest, file.path, existing);
    return {
      ...base,
      kind: edited ? 'conflict' : 'update',
      content: file.content,
      ...(edited && { note: 'edited by hand' }),
    };
  });
  const planned = new Set(files.map((f) => f.path));
  for (const path of Object.keys(recorded)) {
    const existing = planned.has(path) ? undefined : current(path);
    if (existing === undefined || manifest === undefined) continue;
    const edited = !isAsRecorded(manifest, path, existing);
    changes.push({
      path,
      owner: 'generator',
      kind: edited ? 'conflict' : 'delete',
      ...(edited && { note: 'edited by hand, and no longer generated' }),
    });
  }
  for (const [path, why] of orphans) changes.push({ path, owner: 'user', kind: 'orphan', note: why });
  return changes;
}
