import type { Resource } from '../model.js';

/** The types of the events of a resource's records: its writes and its actions (GET actions change nothing). */
export const eventTypes = (resource: Resource): string[] => [
  ...['created', 'updated', 'deleted'].map((kind) => `${resource.name}.${kind}`),
  ...resource.actions.filter((a) => a.method === 'post').map((a) => `${resource.name}.${a.name}`),
];
