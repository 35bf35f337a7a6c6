// Created by restsmith once. This file is yours: restsmith never overwrites it.

import type { FastifyInstance, RouteDependencies } from './extend.js';

/**
 * Your own routes, registered under the API's prefix after the generated ones. restsmith created this file once and
 * never rewrites it. A route registered with a `schema` appears in /openapi.json (and on /docs) beside the generated
 * ones; everything a route needs — the stores, the authorizer, each resource's access rules, problems — comes from
 * ./extend.js. The README's "Your own routes" shows one.
 */
export async function registerRoutes(api: FastifyInstance, _dependencies: RouteDependencies): Promise<void> {
  api.log.debug('no routes of your own (see src/routes.ts)');
}
