import type { Api, Resource } from '../model.js';
import { LastRun } from '../memo.js';
import { canonical, neighbourhood, neighbourhoodKey } from '../contract/neighbourhood.js';
import { resourceView, type ResourceView } from './resource-view.js';

/**
 * Each resource's view, made from its neighbourhood (contract/neighbourhood.ts) and remembered until the next run's
 * view of the same resource. Under `generate --watch` a save changes one resource or two: the views of the others
 * are the ones made last time, found by a key of all they are made from (the neighbourhood, settings included, and
 * the user's orphaned handlers).
 */
const views = new LastRun<ResourceView>();

/** The view of each of `api`'s resources, in order: remembered ones where their key is the same. */
export function resourceViews(api: Api, orphanHandlers: ReadonlyMap<string, readonly string[]>): ResourceView[] {
  const made = api.resources.map((resource) => {
    const orphans = orphanHandlers.get(resource.names.kebab) ?? [];
    const key = (): string => viewKey(api, resource, orphanHandlers);
    return views.of(resource.name, key, () => resourceView(neighbourhood(api, resource), resource, orphans));
  });
  views.keep(new Set(api.resources.map((r) => r.name)));
  return made;
}

/**
 * A key of all a resource's view is made from: its neighbourhood (settings included) and the user's orphaned handlers.
 * Two views of the same key are the same, and so is every file rendered from them (render.ts, renderKey).
 */
export const viewKey = (api: Api, resource: Resource, orphanHandlers: ReadonlyMap<string, readonly string[]>): string =>
  `${neighbourhoodKey(api, resource)}\n${canonical(orphanHandlers.get(resource.names.kebab) ?? [])}`;
