import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { CustomRoutes, openApiPath, operationOf, type OpenApiDocument } from '../../runtime/src/http/custom-routes.js';

/** The user's own routes in the OpenAPI document: given Fastify route schemas, want OpenAPI operations. */
describe('custom routes in the OpenAPI document', () => {
  it.each([
    ['/reports', '/reports'],
    ['/reports/:id', '/reports/{id}'],
    ['/reports/:year(^\\d{4}$)/:month', '/reports/{year}/{month}'],
  ])('writes the path %s as %s', (url, want) => expect(openApiPath(url)).toBe(want));

  it('carries a schema over: parameters by location, the body, each response, the words', () => {
    const operation = operationOf({
      summary: 'Tasks per status',
      tags: ['reports'],
      params: { type: 'object', properties: { id: { type: 'integer', description: 'the project' } } },
      querystring: {
        type: 'object',
        properties: { from: { type: 'string', format: 'date' }, all: { type: 'boolean' } },
        required: ['from'],
      },
      body: { type: 'object', properties: { note: { type: 'string' } } },
      response: {
        200: { description: 'The counts', type: 'object', properties: { todo: { type: 'integer' } } },
        204: { description: 'Nothing to count', type: 'null' },
      },
    });
    expect(operation).toEqual({
      summary: 'Tasks per status',
      tags: ['reports'],
      parameters: [
        { name: 'id', in: 'path', required: true, description: 'the project', schema: { type: 'integer' } },
        { name: 'from', in: 'query', required: true, schema: { type: 'string', format: 'date' } },
        { name: 'all', in: 'query', required: false, schema: { type: 'boolean' } },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', properties: { note: { type: 'string' } } } } },
      },
      responses: {
        200: {
          description: 'The counts',
          content: { 'application/json': { schema: { type: 'object', properties: { todo: { type: 'integer' } } } } },
        },
        204: { description: 'Nothing to count' },
      },
    });
  });

  it('collects the routes of its context with a schema, under the prefix, never replacing a generated one', async () => {
    const app = Fastify();
    const custom = new CustomRoutes();
    const generated: OpenApiDocument = { openapi: '3.1.0', paths: { '/tasks': { get: { operationId: 'listTasks' } } } };
    await app.register(
      async (api) => {
        api.get('/tasks', { schema: { summary: 'generated, outside the watched context' } }, async () => []);
        await api.register(async (own) => {
          custom.watch(own, '/api');
          own.get('/reports/:id', { schema: { summary: 'a report' } }, async () => ({}));
          own.post('/tasks', { schema: { summary: 'a second create' } }, async () => ({}));
          own.get('/hidden', { schema: { hide: true } }, async () => ({}));
          own.get('/bare', async () => ({}));
        });
      },
      { prefix: '/api' },
    );
    await app.ready();
    const merged = custom.merged(generated);
    expect(Object.keys(merged.paths).sort()).toEqual(['/reports/{id}', '/tasks']);
    expect(merged.paths['/tasks']).toEqual({
      get: { operationId: 'listTasks' },
      post: { summary: 'a second create', responses: { default: { description: 'Response' } } },
    });
    expect(Object.keys(merged.paths['/reports/{id}'] ?? {})).toEqual(['get']);
    expect(generated.paths).toEqual({ '/tasks': { get: { operationId: 'listTasks' } } });
    await app.close();
  });
});
