import { Validator } from '@seriousme/openapi-schema-validator';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, http, ROOT, type RunningServer, serveGenerated, WORK } from '../helpers/project.js';
import { SECRET } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

const run = promisify(execFile);

describe.each(['blog.yaml', 'tasks.yaml', 'library.yaml', 'clinic.yaml'])(
  'the OpenAPI document of examples/%s',
  (example) => {
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
      const prefix = { 'blog.yaml': '/api/v1', 'clinic.yaml': '/api' }[example] ?? '';
      // a templated server: the origin is a variable, the prefix is fixed and every path is relative to it
      expect(document.servers).toEqual([
        {
          url: `{origin}${prefix}`,
          description: expect.any(String),
          variables: { origin: { default: 'http://127.0.0.1:3000', description: expect.any(String) } },
        },
      ]);
      expect(Object.keys(document.paths).every((path) => !path.startsWith('/api'))).toBe(true);
      expect(document.paths['/healthz']?.get?.responses['503']).toEqual({
        $ref: '#/components/responses/ServiceUnavailable',
      });
      const refs = (op: { parameters?: { $ref?: string }[] } | undefined) => (op?.parameters ?? []).map((p) => p.$ref);
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const codes = Object.keys(operation.responses);
          // /livez answers 200 whenever the process serves: nothing makes it a 503
          if (path !== '/healthz' && path !== '/livez') expect(codes, `${method} ${path}`).toContain('503');
          // the feed and webhooks are no records (no versions, no ETags): events.test.ts and webhooks.test.ts
          if (path.startsWith('/events') || path.startsWith('/webhooks')) {
            // no Idempotency-Key on POST /webhooks: the stored answer would keep the signing secret in clear
            if (method === 'post' && path === '/webhooks') {
              expect(refs(operation)).not.toContain('#/components/parameters/IdempotencyKey');
              expect(codes).toEqual(expect.arrayContaining(['201', '400', '401', '403', '413', '415']));
            }
            continue;
          }
          // the link routes of a many-to-many relation (`/books/{id}/tags/{tagId}`) change no record's version
          if (/\/\{id\}\/[a-z-]+\/\{[A-Za-z]+\}$/.test(path)) {
            expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['204', '404']));
            continue;
          }
          if (
            method === 'put' ||
            method === 'patch' ||
            method === 'delete' ||
            // an item action changes the record; a nested create (`POST /authors/{id}/books`, a 201) makes another
            (method === 'post' && path.includes('{id}') && !('201' in operation.responses))
          ) {
            expect(refs(operation), `${method} ${path}`).toContain('#/components/parameters/IfMatch');
            expect(codes, `${method} ${path}`).toContain('412');
          }
          if (method === 'post' && path.includes('{id}') && '201' in operation.responses) {
            expect(codes, `${method} ${path}`).toContain('404');
            expect(operation.responses['201']?.headers).toHaveProperty('Location');
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
  },
);

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
    const printed = JSON.parse((await cli('openapi', join(ROOT, 'examples/blog.yaml'))).out) as object;
    // but for its server, which is the one it is served from
    expect(served.body).toEqual({ ...printed, servers: [{ url: `${server.url}/api/v1`, description: 'This server' }] });
    const page = await http('GET', `${server.url}/api/v1/docs/`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/swagger-ui/);
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
    const script = page.text.match(/src="\.\/(static\/[^"]+)"/)?.[1];
    expect((await http('GET', `${server.url}/api/v1/docs/${script}`)).status).toBe(200);
  });
});
