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

  it('has no error under @redocly/cli lint (recommended rules)', async () => {
    const printed = await cli('openapi', join(ROOT, 'examples', example));
    const file = join(WORK, `redocly-${example}.json`);
    mkdirSync(WORK, { recursive: true });
    writeFileSync(file, printed.out);
    // exits 1 when any rule reports an error; warnings (no license in the definition) do not fail it
    const result = await run(process.execPath, [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    expect(result.out).toContain('Your API description is valid');
    expect(result.code).toBe(0);
  });

  it('says what the server does: the prefix in servers, headers, and the problems of each operation', async () => {
    const document = JSON.parse((await cli('openapi', join(ROOT, 'examples', example))).out) as {
      servers: { url: string }[];
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { $ref?: string }[]; responses: Record<string, { $ref?: string; headers?: object }> }
        >
      >;
    };
    const prefix = example === 'blog.yaml' ? '/api/v1' : '/';
    expect(document.servers).toEqual([{ url: prefix }]);
    expect(Object.keys(document.paths).every((path) => !path.startsWith('/api'))).toBe(true);
    expect(document.paths['/healthz']?.get?.responses['503']).toEqual({
      $ref: '#/components/responses/ServiceUnavailable',
    });
    const refs = (op: { parameters?: { $ref?: string }[] } | undefined) => (op?.parameters ?? []).map((p) => p.$ref);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const codes = Object.keys(operation.responses);
        if (path !== '/healthz') expect(codes, `${method} ${path}`).toContain('503');
        if (
          method === 'put' ||
          method === 'patch' ||
          method === 'delete' ||
          (method === 'post' && path.includes('{id}'))
        ) {
          expect(refs(operation), `${method} ${path}`).toContain('#/components/parameters/IfMatch');
          expect(codes, `${method} ${path}`).toContain('412');
        }
        if (method === 'post') {
          expect(refs(operation), `${method} ${path}`).toContain('#/components/parameters/IdempotencyKey');
          expect(codes, `${method} ${path}`).toContain('422');
        }
        if (method === 'put' || method === 'patch') {
          expect(codes).toEqual(expect.arrayContaining(['400', '413', '415']));
          expect(operation.responses['200']?.headers).toHaveProperty('ETag');
        }
      }
    }
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
    // openapi-typescript with its default options: a field the server defaults stays optional in requests
    await run(process.execPath, [
      join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      `${server.url}/api/v1/openapi.json`,
      '-o',
      join(client, 'api.d.ts'),
    ]);
    writeFileSync(
      join(client, 'main.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const [url, bearer] = process.argv.slice(2) as [string, string];
const api = createClient<paths>({ baseUrl: url, headers: { authorization: \`Bearer \${bearer}\` } });

const user = await api.POST('/users', { body: { email: 'typed@example.com', name: 'Typed' } });
if (user.data === undefined) throw new Error('no user');
const post = await api.POST('/posts', { body: { title: 'From a typed client', authorId: user.data.id } });
const title: string | undefined = post.data?.title;
const page = await api.GET('/posts', { params: { query: { limit: 5 } } });
const missing = await api.GET('/posts/{id}', { params: { path: { id: '01900000-0000-7000-8000-000000000000' } } });
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
      // paths are relative to the document's server, which carries the prefix
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'main.ts', `${server.url}/api/v1`, admin],
      { cwd: client },
    );
    expect(JSON.parse(stdout)).toEqual({ title: 'From a typed client', count: 1, missing: 404, problem: 'Not Found' });
  });
});
