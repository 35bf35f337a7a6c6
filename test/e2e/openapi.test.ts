import { Validator } from '@seriousme/openapi-schema-validator';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, http, ROOT, type RunningServer, serveGenerated, TSC7, WORK } from '../helpers/project.js';
import { SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

const run = promisify(execFile);

describe.each(['blog.yaml', 'tasks.yaml'])('the OpenAPI document of examples/%s', (example) => {
  it('is valid OpenAPI 3.1 by an independent validator, and describes every route', async () => {
    const printed = await cli('openapi', join(ROOT, 'examples', example));
    expect(printed.code).toBe(0);
    const document = JSON.parse(printed.out) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).length).toBeGreaterThan(3);
  });
});

/** The blog's document, served by the blog, turned into a typed client that compiles and talks to it. */
let server: RunningServer;

beforeAll(async () => {
  ({ server } = await serveGenerated(
    `${ROOT}/examples/blog.yaml`,
    'e2e-openapi',
    { DATABASE_URL: await databaseUrl('openapi'), JWT_SECRET: SECRET },
    '/api/v1/healthz',
  ));
});

afterAll(async () => {
  await server?.stop();
});

describe('the served document', () => {
  it('is the one `restsmith openapi` prints, at /openapi.json, with a page at /docs served locally', async () => {
    const served = await http('GET', `${server.url}/api/v1/openapi.json`);
    expect(served.status).toBe(200);
    const printed = await cli('openapi', join(ROOT, 'examples/blog.yaml'));
    expect(served.body).toEqual(JSON.parse(printed.out));
    const page = await http('GET', `${server.url}/api/v1/docs/`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/swagger-ui/);
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
    const script = page.text.match(/src="\.\/(static\/[^"]+)"/)?.[1];
    expect((await http('GET', `${server.url}/api/v1/docs/${script}`)).status).toBe(200);
  });

  it('makes a typed client (openapi-typescript + openapi-fetch) that compiles under strict and makes real calls', async () => {
    const client = join(WORK, 'e2e-openapi-client');
    mkdirSync(client, { recursive: true });
    // a field with a default may be left out of a request: openapi-typescript is told not to make it required
    await run(process.execPath, [
      join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      `${server.url}/api/v1/openapi.json`,
      '--default-non-nullable',
      'false',
      '-o',
      join(client, 'api.d.ts'),
    ]);
    writeFileSync(
      join(client, 'main.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const [url, bearer] = process.argv.slice(2) as [string, string];
const api = createClient<paths>({ baseUrl: url, headers: { authorization: \`Bearer \${bearer}\` } });

const user = await api.POST('/api/v1/users', { body: { email: 'typed@example.com', name: 'Typed' } });
if (user.data === undefined) throw new Error('no user');
const post = await api.POST('/api/v1/posts', { body: { title: 'From a typed client', authorId: user.data.id } });
const title: string | undefined = post.data?.title;
const page = await api.GET('/api/v1/posts', { params: { query: { limit: 5 } } });
const missing = await api.GET('/api/v1/posts/{id}', { params: { path: { id: '01900000-0000-7000-8000-000000000000' } } });
console.log(JSON.stringify({ title, count: page.data?.items.length, missing: missing.response.status, problem: missing.error?.title }));
`,
    );
    writeFileSync(
      join(client, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(join(client, 'package.json'), JSON.stringify({ type: 'module' }));
    await run(process.execPath, [TSC7, '-p', 'tsconfig.json'], { cwd: client });
    const admin = await token('root', { roles: ['admin'] });
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'main.ts', `${server.url}`, admin],
      { cwd: client },
    );
    expect(JSON.parse(stdout)).toEqual({ title: 'From a typed client', count: 1, missing: 404, problem: 'Not Found' });
  });
});
