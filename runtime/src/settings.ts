// A STAND-IN, never copied into a project: restsmith writes each project's src/settings.ts from its definition
// (templates/project/src/settings.ts.hbs). It is here so that the runtime type-checks and is tested in this repo.

import type { EventSettings } from './events/routes.js';
import type { CorsSettings } from './http/cors.js';
export const PREFIX = '/api/v1';
export const ADMIN_ROLE = 'admin';
export const PAGE_SIZE = { default: 20, max: 100 };
export const INCLUDE_MAX_RECORDS = 1000;
export const BODY_LIMIT = 1_048_576;
export const RULES_NEED_TOKENS = true;
export const RATE_LIMIT_MAX = 300;
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const DEFAULT_DATABASE_URL = 'sqlite:./data/stand-in.db';
export const CORS: CorsSettings | null = null;
export const EVENTS: EventSettings | null = null;
/** Where problem types live: `problems.base`, else `<prefix>/problems` (see http/problem.ts, problemType). */
export const PROBLEMS_BASE = '/api/v1/problems';
