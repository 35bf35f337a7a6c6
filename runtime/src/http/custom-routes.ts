import type { FastifyInstance, RouteOptions } from 'fastify';

type JsonObject = Record<string, unknown>;

/** What the OpenAPI document of this API holds, as far as adding operations to it goes. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/** The parts of a Fastify route schema that say what a route takes and answers (JSON Schema, as ajv reads them). */
interface RouteSchema {
  summary?: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  deprecated?: boolean;
  hide?: boolean;
  params?: JsonObject;
  querystring?: JsonObject;
  headers?: JsonObject;
  body?: JsonObject;
  response?: Record<string, JsonObject>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** `/reports/:id` → `/reports/{id}` (a parameter's regular expression, `:id(^\d+$)`, left out). */
export const openApiPath = (url: string): string =>
  url.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\([^/]*\))?/g, (_, name: string) => `{${name}}`);

/** The parameters of one location from the JSON Schema of an object (`params`, `querystring` or `headers`). */
function parameters(schema: JsonObject | undefined, location: 'path' | 'query' | 'header'): JsonObject[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema?.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' && { description }),
      schema: rest,
    };
  });
}

/** A response of a Fastify route schema: a JSON Schema (with an optional description), or already `{ content }`. */
function response(schema: JsonObject): JsonObject {
  const { description, ...body } = schema;
  const said = typeof description === 'string' ? description : 'Response';
  if ('content' in body) return { description: said, ...body };
  const empty = Object.keys(body).length === 0 || body.type === 'null';
  return empty
    ? { description: said }
    : { description: said, content: { 'application/json': { schema: body } } };
}

/** The OpenAPI operation of a route's schema. OpenAPI 3.1 takes JSON Schema as it is: the schemas carry over whole. */
export function operationOf(schema: RouteSchema): JsonObject {
  const given = [
    ...parameters(schema.params, 'path'),
    ...parameters(schema.querystring, 'query'),
    ...parameters(schema.headers, 'header'),
  ];
  const responses = Object.entries(schema.response ?? {});
  return {
    ...(schema.tags !== undefined && { tags: schema.tags }),
    ...(schema.summary !== undefined && { summary: schema.summary }),
    ...(schema.description !== undefined && { description: schema.description }),
    ...(schema.operationId !== undefined && { operationId: schema.operationId }),
    ...(schema.deprecated === true && { deprecated: true }),
    ...(given.length > 0 && { parameters: given }),
    ...(schema.body !== undefined && {
      requestBody: { required: true, content: { 'application/json': { schema: schema.body } } },
    }),
    responses:
      responses.length === 0
        ? { default: { description: 'Response' } }
        : Object.fromEntries(responses.map(([status, body]) => [status, response(body)])),
  };
}

/**
 * The routes the user registers with a schema (src/routes.ts), as OpenAPI operations: /openapi.json serves them
 * beside the generated ones. A route without a schema, or with `schema.hide`, is left out.
 */
export class CustomRoutes {
  readonly #paths: Record<string, Record<string, JsonObject>> = {};

  /** Collects the routes registered on `app` (an encapsulated context) from now on; `prefix` is the API's. */
  watch(app: FastifyInstance, prefix: string): void {
    app.addHook('onRoute', (route: RouteOptions) => {
      const schema = route.schema as RouteSchema | undefined;
      if (schema === undefined || schema.hide === true) return;
      const url = route.url.startsWith(prefix) ? route.url.slice(prefix.length) || '/' : route.url;
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) =>
        m.toLowerCase(),
      );
      for (const method of methods.filter((m) => METHODS.has(m))) {
        (this.#paths[openApiPath(url)] ??= {})[method] = operationOf(schema);
      }
    });
  }

  /** The generated document with these operations added: a generated path's own operations are never replaced. */
  merged<D extends OpenApiDocument>(document: D): D {
    if (Object.keys(this.#paths).length === 0) return document;
    const paths = { ...document.paths };
    for (const [path, operations] of Object.entries(this.#paths))
      paths[path] = { ...operations, ...paths[path] };
    return { ...document, paths };
  }
}
