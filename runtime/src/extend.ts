/**
 * Everything your own code needs from the generated project, from one place (see src/routes.ts and the README's
 * "Your own routes"): the stores and the authorizer your routes get, each resource's access rules for
 * `authorizer.guard(...)`, and the problems (RFC 9457) the error handler answers with.
 */
export type { FastifyInstance } from 'fastify';
export type { Authorizer, Scope } from './auth/authorize.js';
export { forbidden } from './auth/authorize.js';
export type { Database } from './db/database.js';
export {
  badRequest,
  conflict,
  HttpProblem,
  notFound,
  problem,
  PROBLEM_KINDS,
  type ProblemKind,
} from './http/problem.js';
export { access, type RouteDependencies, type Stores } from './resources/index.js';
export type { JsonValue, Page, Versioned, WriteOptions } from './types.js';
