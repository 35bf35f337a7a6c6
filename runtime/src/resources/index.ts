// A STAND-IN, never copied into a project: restsmith writes each project's src/resources/index.ts, which makes the
// stores and registers the routes of its resources (templates/project/src/resources/index.ts.hbs).
import type { FastifyInstance } from 'fastify';
import type { Authorizer } from '../auth/authorize.js';
import type { Database } from '../db/database.js';
import type { EventSource } from '../events/feed.js';
import type { EventLog } from '../events/log.js';

export function makeStores(_db: Database, _cursorKey: Buffer, _events: EventLog | null) {
  return {};
}

export type Stores = ReturnType<typeof makeStores>;

export const eventSources = (_stores: Stores): EventSource[] => [];

export interface RouteDependencies {
  db: Database;
  stores: Stores;
  authorizer: Authorizer;
  prefix: string;
  /** the event log, when the definition has `events` */
  events: EventLog | null;
}

/** Each resource's access rules, for the guards of the user's own routes (see src/extend.ts). */
export const access = {};

export function registerResources(_app: FastifyInstance, _dependencies: RouteDependencies): void {}
