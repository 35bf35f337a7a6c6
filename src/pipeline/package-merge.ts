/**
 * `package.json` is merged, not owned (SPEC §9): restsmith owns the entries it writes — top-level fields (`name`,
 * `type`…) and each entry of its objects (`scripts.build`, `dependencies.fastify`…) — and every other entry is the
 * user's, kept where it is. An owned entry the user changed or removed since the last run is a conflict that names
 * it; one they left as restsmith wrote it takes its new value; one restsmith no longer writes goes, unless the user
 * changed it (then it is theirs).
 */

import { hash, type Manifest } from './manifest.js';

type Json = unknown;
type Obj = Record<string, Json>;

/** One owned entry: a top-level key, or a key of a top-level object. */
type Entry = readonly [string] | readonly [string, string];

export interface PackageMerge {
  /** the package.json to write */
  merged: Obj;
  /**
   * owned entries changed or removed by hand (`scripts.build changed`), or why the file cannot be merged; with
   * `force` they are overwritten, and named all the same
   */
  conflicts: string[];
  /**
   * the file already holds `merged`, whatever its layout (npm writes each item of an array on a line of its own, where
   * prettier joins a short array on one): it is kept as it is, a layout being no change to write or report
   */
  asIs: boolean;
}

const isObject = (value: Json): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

function entriesOf(pkg: Obj): Entry[] {
  return Object.entries(pkg).flatMap(([key, value]): Entry[] =>
    isObject(value) ? Object.keys(value).map((sub): Entry => [key, sub]) : [[key]],
  );
}

function get(pkg: Obj, [key, sub]: Entry): Json {
  const value = pkg[key];
  if (sub === undefined) return value;
  return isObject(value) ? value[sub] : undefined;
}

function set(pkg: Obj, [key, sub]: Entry, value: Json): void {
  if (sub === undefined) {
    pkg[key] = value;
    return;
  }
  const parent = pkg[key];
  if (isObject(parent)) parent[sub] = value;
  else pkg[key] = { [sub]: value };
}

function remove(pkg: Obj, [key, sub]: Entry): void {
  if (sub === undefined) {
    delete pkg[key];
    return;
  }
  const parent = pkg[key];
  if (isObject(parent)) delete parent[sub];
}

const same = (a: Json, b: Json): boolean => JSON.stringify(a) === JSON.stringify(b);
const named = (entry: Entry): string => entry.join('.');

/**
 * Merges what restsmith writes now (`generated`) into the file as it is (`current`, its text; undefined when
 * absent), knowing what it wrote last time (`previous`; undefined when unknown: then an entry that differs is a
 * conflict). With `force`, restsmith's values win every conflict.
 */
export function mergePackageJson(
  generated: Obj,
  current: string | undefined,
  previous: Obj | undefined,
  force: boolean,
): PackageMerge {
  if (current === undefined) return { merged: generated, conflicts: [], asIs: false };
  const parsed = parsePackage(current);
  if (!isObject(parsed)) {
    return { merged: generated, conflicts: ['package.json is not a JSON object'], asIs: false };
  }
  const merged = structuredClone(parsed);
  const conflicts: string[] = [];
  for (const entry of entriesOf(generated)) {
    const [now, was, is] = [get(generated, entry), previous && get(previous, entry), get(parsed, entry)];
    if (same(is, now)) continue;
    const untouched = was !== undefined && same(is, was);
    const added = was === undefined && is === undefined;
    if (!untouched && !added) conflicts.push(`${named(entry)} ${is === undefined ? 'removed' : 'changed'}`);
    if (untouched || added || force) set(merged, entry, now);
  }
  // entries restsmith wrote before and writes no more: gone, unless the user changed them
  const owned = new Set(entriesOf(generated).map(named));
  for (const entry of previous === undefined ? [] : entriesOf(previous)) {
    if (!owned.has(named(entry)) && same(get(parsed, entry), get(previous ?? {}, entry))) remove(merged, entry);
  }
  return { merged, conflicts, asIs: same(merged, parsed) };
}

/**
 * What restsmith wrote into package.json last time: recorded in the manifest; for a manifest from before the merge,
 * the file itself if nobody edited it since; else unknown (an entry that differs from restsmith's is then a conflict).
 */
export function previousPackage(manifest: Manifest | undefined, current: string | undefined): Obj | undefined {
  if (manifest?.package !== undefined) return manifest.package;
  if (current === undefined || manifest?.files['package.json'] !== hash(current)) return undefined;
  const parsed = parsePackage(current);
  return isObject(parsed) ? parsed : undefined;
}

/** package.json's JSON (a byte order mark, which npm and some editors leave, is no part of it); undefined if none. */
function parsePackage(text: string): Json {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
}
