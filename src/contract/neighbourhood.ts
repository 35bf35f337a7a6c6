import { createHash } from 'node:crypto';
import type { Api, Resource } from '../model.js';
import { oncePerPair } from '../memo.js';
import { referrersOf } from './referrers.js';

/**
 * How far from a resource its view reads other resources, beyond `limits.includeDepth`: the embedded records of the
 * deepest `include` level name their own refs' targets (json-schemas.ts), and a to-one relation's nested creates are
 * the target's relations back (relations.ts, createdUnder). One more level than any of these reads, as a margin.
 */
const BEYOND_INCLUDES = 2;

/**
 * `api` with only the resources `resource`'s view may read (resource-view.ts), in the definition's order: those
 * within `includeDepth + 2` steps of it, a step being a ref field, a relation or a join resource either way; and,
 * for the refs that may block its delete (blockers.ts), every resource a cascade from it deletes with it and every
 * resource with a ref to one of those. Every setting of the api is kept as it is.
 *
 * A resource's view (generate/resource-view.ts) and its part of the OpenAPI document (openapi/document.ts) are made
 * from this alone, on every run: what they read of other resources is written down in one place, and they can be
 * reused while this part of the api is the same (`neighbourhoodKey`). One that read further would differ from the
 * one made from the whole api; `neighbourhood.test.ts` holds the two equal.
 *
 * Made once an api and resource: the view, the OpenAPI part and the key share it, and with it what is made once an
 * api (a listing's filters, the referrers of a resource).
 */
export const neighbourhood = oncePerPair(neighbourhoodOf);

function neighbourhoodOf(api: Api, resource: Resource): Api {
  const graph = graphOf(api);
  const kept = new Set<string>([resource.name]);
  let frontier = [resource.name];
  for (let step = 0; step < api.limits.includeDepth + BEYOND_INCLUDES && frontier.length > 0; step++) {
    const next: string[] = [];
    for (const name of frontier) {
      for (const near of graph.get(name) ?? []) {
        if (!kept.has(near)) {
          kept.add(near);
          next.push(near);
        }
      }
    }
    frontier = next;
  }
  // a cascade deletes records of any number of resources, each of whose referrers may block the delete
  const deleted = [resource.name];
  const reached = new Set(deleted);
  for (let i = 0; i < deleted.length; i++) {
    for (const { from, ref } of referrersOf(api, deleted[i] ?? '')) {
      kept.add(from.name);
      if (ref.onDelete === 'cascade' && !reached.has(from.name)) {
        reached.add(from.name);
        deleted.push(from.name);
      }
    }
  }
  return {
    ...api,
    resources: guarded(
      api.resources.filter((r) => kept.has(r.name)),
      api.resources,
    ),
  };
}

/**
 * The resources of a neighbourhood, whose `find` fails loudly where it would miss a resource of the whole api: a
 * view that looked one up outside its neighbourhood would otherwise go on as if there were none (a ref's id type
 * taken for a uuid, say), silently unlike the view made from the whole api. After validation every name a
 * definition uses is a resource's, so a miss here is always such a read: an internal error, to widen `graphOf`.
 */
function guarded(kept: Resource[], all: readonly Resource[]): Resource[] {
  const find = (predicate: (r: Resource, i: number, list: readonly Resource[]) => unknown): Resource | undefined => {
    const found = Array.prototype.find.call(kept, predicate) as Resource | undefined;
    const outside = found === undefined ? all.find(predicate) : undefined;
    if (outside !== undefined) throw new Error(`${outside.name} was read outside the neighbourhood it was left out of`);
    return found;
  };
  Object.defineProperty(kept, 'find', { value: find });
  return kept;
}

/** By resource: the resources one step away, either way (a field naming one, a relation, a join resource). */
type Graph = ReadonlyMap<string, ReadonlySet<string>>;

/** Made once an api. */
const graphs = new WeakMap<Api, Graph>();

function graphOf(api: Api): Graph {
  const known = graphs.get(api);
  if (known !== undefined) return known;
  const near = new Map<string, Set<string>>();
  const link = (a: string, b: string): void => {
    if (a === b) return;
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const set = near.get(from);
      if (set === undefined) near.set(from, new Set([to]));
      else set.add(to);
    }
  };
  for (const r of api.resources) {
    // every field that names a resource: stored, computed, and the inputs of actions (whose id types they take)
    for (const field of [...r.fields, ...r.computed, ...r.actions.flatMap((a) => a.input)]) {
      if (field.ref !== undefined) link(r.name, field.ref.to);
    }
    for (const relation of r.relations) {
      link(r.name, relation.target);
      if (relation.through !== undefined) link(r.name, relation.through.resource);
    }
  }
  graphs.set(api, near);
  return near;
}

/**
 * A key of everything in `resource`'s neighbourhood, settings included, in order: two runs give a resource the same
 * key exactly when its neighbourhood is the same (but for a SHA-256 collision). A digest, whatever the neighbourhood's
 * size. The keys of an api are made once.
 */
export function neighbourhoodKey(api: Api, resource: Resource): string {
  let byName = keys.get(api);
  if (byName === undefined) keys.set(api, (byName = keysOf(api)));
  const key = byName.get(resource.name);
  if (key === undefined) throw new Error(`${resource.name} is not a resource of this api`);
  return key;
}

const keys = new WeakMap<Api, ReadonlyMap<string, string>>();

function keysOf(api: Api): ReadonlyMap<string, string> {
  const digests = new Map<Resource, string>();
  const digestOf = (r: Resource): string => {
    let digest = digests.get(r);
    if (digest === undefined) digests.set(r, (digest = digestOfText(canonical(r))));
    return digest;
  };
  const { resources: _, ...settings } = api;
  const settingsDigest = digestOfText(canonical(settings));
  return new Map(
    api.resources.map((resource) => {
      const near = neighbourhood(api, resource).resources.map((r) => `${r.name}:${digestOf(r)}`);
      return [resource.name, digestOfText([settingsDigest, resource.name, ...near].join('\n'))];
    }),
  );
}

export const digestOfText = (text: string): string => createHash('sha256').update(text).digest('base64url');

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
