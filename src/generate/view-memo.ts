import { createHash } from 'node:crypto';
import type { Api, Resource } from '../model.js';
import { neighbourhood } from './neighbourhood.js';
import { resourceView, type ResourceView } from './resource-view.js';

/**
 * Each resource's view, made from its neighbourhood (neighbourhood.ts) and remembered until the next run's view of
 * the same resource. Under `generate --watch` one process plans again on every save, and a save changes one resource
 * or two: the views of the others are the ones made last time, found by a key of all they are made from (the
 * neighbourhood, settings included, and the user's orphaned handlers). One entry a resource: what is held is no
 * larger than the project. The views are shared between runs, and nothing may change them.
 */
const last = new Map<string, { key: string; view: ResourceView }>();

/** The view of each of `api`'s resources, in order: remembered ones where their key is the same. */
export function resourceViews(api: Api, orphanHandlers: ReadonlyMap<string, readonly string[]>): ResourceView[] {
  const digests = new Map<Resource, string>();
  const digestOf = (r: Resource): string => {
    let digest = digests.get(r);
    if (digest === undefined) digests.set(r, (digest = digest64(canonical(r))));
    return digest;
  };
  const { resources: _, ...settings } = api;
  const settingsDigest = digest64(canonical(settings));
  const views = api.resources.map((resource) => {
    const near = neighbourhood(api, resource);
    const orphans = orphanHandlers.get(resource.names.kebab) ?? [];
    const key = [
      settingsDigest,
      resource.name,
      near.resources.map((r) => `${r.name}:${digestOf(r)}`).join(','),
      canonical(orphans),
    ].join('\n');
    const known = last.get(resource.name);
    if (known?.key === key) return known.view;
    const view = resourceView(near, resource, orphans);
    last.set(resource.name, { key, view });
    return view;
  });
  const names = new Set(api.resources.map((r) => r.name));
  for (const name of last.keys()) if (!names.has(name)) last.delete(name);
  return views;
}

const digest64 = (text: string): string => createHash('sha256').update(text).digest('base64url');

/**
 * A model value as text that tells every two different values apart: JSON, but for what JSON loses (an undefined
 * property, a number that is not finite, -0), written as a string that starts with a NUL; a string of the value that
 * starts with one gets another, so that it cannot be taken for them.
 */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => {
    if (v === undefined) return `${NUL}undefined`;
    if (typeof v === 'number' && !Number.isFinite(v)) return `${NUL}${v}`;
    if (Object.is(v, -0)) return `${NUL}-0`;
    if (typeof v === 'string' && v.startsWith(NUL)) return `${NUL}${v}`;
    return v;
  });

const NUL = '\u0000';
