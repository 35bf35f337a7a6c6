import type { Limits } from '../model.js';
import type { LimitsDef } from '../definition/schema.js';
import { parseDuration, parseSize } from '../definition/units.js';

/** What a definition that leaves a setting out gets. */
export const DEFAULTS = {
  access: 'authenticated',
  adminRole: 'admin',
  pageSize: { default: 20, max: 100 },
  bodySize: 1024 * 1024,
  rateLimit: { max: 300, windowMs: 60_000 },
  includeDepth: 2,
  includeMaxRecords: 1000,
  events: { retention: '7d', attempts: 8, firstDelay: '30s' },
} as const;

/** The limits of an API: those the definition sets, the defaults for the rest. */
export function limitsOf(def: LimitsDef | undefined): Limits {
  const given = def?.pageSize;
  const max = given?.max ?? Math.max(DEFAULTS.pageSize.max, given?.default ?? 0);
  const pageDefault = given?.default ?? Math.min(DEFAULTS.pageSize.default, max);
  return {
    pageSize: { default: pageDefault, max },
    bodySize: def?.bodySize === undefined ? DEFAULTS.bodySize : (parseSize(def.bodySize) ?? DEFAULTS.bodySize),
    includeDepth: def?.includeDepth ?? DEFAULTS.includeDepth,
    include: { maxRecords: def?.include?.maxRecords ?? DEFAULTS.includeMaxRecords },
    rateLimit: {
      max: def?.rateLimit?.max ?? DEFAULTS.rateLimit.max,
      windowMs:
        def?.rateLimit?.window === undefined
          ? DEFAULTS.rateLimit.windowMs
          : (parseDuration(def.rateLimit.window) ?? DEFAULTS.rateLimit.windowMs),
    },
  };
}
