// Created by restsmith once. This file is yours: restsmith never overwrites it.

import { serve } from './serve.js';

/**
 * The server's entry point. restsmith created this file once and never rewrites it: it is yours to change. `serve`
 * (serve.ts, which restsmith keeps up to date) reads the environment, waits for the database, applies pending
 * migrations, listens, and on SIGTERM drains and exits (README.md § Running in production). Your plugins and hooks
 * go in hooks.ts, your routes in routes.ts; readiness checks of your own (each says why the server is not ready, or
 * nothing) here, e.g. `serve({ readiness: [() => (cache.warm ? undefined : 'the cache is warming up')] })`.
 */
await serve();
