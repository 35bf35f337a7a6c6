import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import {
  cli,
  generateFresh,
  http,
  ROOT,
  startServer,
  typecheckAndBuild,
  type RunningServer,
} from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * Custom routes are first-class (SPEC §9): the route the generated README shows, written into the user-owned
 * src/routes.ts as a user would paste it, compiles with the imports of src/extend.ts, runs behind the generated
 * authorizer, appears in /openapi.json beside the generated operations, and survives a regenerate.
 */
let server: RunningServer;
let dir: string;
let routes: string;
const api = () => `${server.url}/api/v1`;

beforeAll(async () => {
  dir = await generateFresh(`${ROOT}/examples/blog.yaml`, 'e2e-custom-routes');
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Your own routes'));
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(example, 'the README shows a route of your own').toBeDefined();
  routes = example ?? '';
  writeFileSync(join(dir, 'src/routes.ts'), routes);
  await typecheckAndBuild(dir);
  server = await startServer(
    dir,
    { DATABASE_URL: await databaseUrl('custom-routes'), JWT_SECRET: SECRET },
    '/api/v1/healthz',
  );
});

afterAll(async () => {
  await server?.stop();
});

it('answers behind the rule it borrows: 401 without a token, 403 for a role the rule does not name', async () => {
  const admin = as(await token('root', { roles: ['admin'] }));
  for (const name of ['ann', 'bob']) {
    expect((await admin('POST', `${api()}/users`, { email: `${name}@example.com`, name })).status).toBe(201);
  }
  const counted = await admin('GET', `${api()}/reports/users`);
  expect([counted.status, counted.body]).toEqual([200, { count: 2 }]);
  expect((await http('GET', `${api()}/reports/users`)).status).toBe(401);
  // a path of your own answers the methods it does not take 405, as the generated ones do
  const post = await http('POST', `${api()}/reports/users`, {});
  expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  expect((await as(await token('ann'))('GET', `${api()}/reports/users`)).status).toBe(403);
});

it('is in /openapi.json beside the generated operations, which are unchanged', async () => {
  const served = (await http('GET', `${api()}/openapi.json`)).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  expect(served.paths['/reports/users']?.get).toMatchObject({
    summary: 'How many records of /users the caller may list (up to 1000)',
    tags: ['reports'],
    responses: { 200: { content: { 'application/json': { schema: { required: ['count'] } } } } },
  });
  const generated = JSON.parse(readFileSync(join(dir, 'src/openapi.json'), 'utf8')) as { paths: object };
  const { '/reports/users': _custom, ...rest } = served.paths;
  expect(rest).toEqual(generated.paths);
});

it('is kept by a regenerate, byte for byte', async () => {
  const result = await cli('generate', `${ROOT}/examples/blog.yaml`, '--out', dir);
  expect(result.code, result.err).toBe(0);
  expect(readFileSync(join(dir, 'src/routes.ts'), 'utf8')).toBe(routes);
});
