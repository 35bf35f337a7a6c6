// Created by restsmith once. This file is yours: restsmith never overwrites it.

import type { ProjectsComputed } from '../resources/projects/model.js';

/**
 * The computed fields of projects: never stored or accepted, each valued here from the record as stored (or null).
 * restsmith created this file once and never rewrites it; when the definition gains a computed field, its stub is
 * added here and nothing else is touched. Each runs for every record returned (reads, listings, embedded records):
 * keep it fast, and a function of the record alone — a value that depends on anything else goes stale behind the
 * record's ETag.
 */
export const projectsComputed: ProjectsComputed = {
  /** "KEY: name", for lists. (computed by src/computed/projects.ts) */
  title(_record) {
    return null;
  },
};
