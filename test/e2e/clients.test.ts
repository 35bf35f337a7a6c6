import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, http, ROOT, type RunningServer, serveGenerated, startServer, TSC7, WORK } from '../helpers/project.js';
import { SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

const run = promisify(execFile);
const bin = (path: string): string => join(ROOT, 'node_modules', path);

/**
 * The blog's served document turned into clients by the generators users reach for, with their default options and
 * nothing configured but the server's address: each type-checks under `tsc --strict` and runs one scripted flow
 * against the live server (create, a filtered list paged by cursor, PATCH with If-Match then a stale one, an
 * action, typed problems).
 */
let server: RunningServer;
let dir: string;
let admin: string;
const base = (): string => `${server.url}/api/v1`;

beforeAll(async () => {
  ({ server, dir } = await serveGenerated(
    `${ROOT}/examples/blog.yaml`,
    'e2e-clients',
    { DATABASE_URL: await databaseUrl('clients'), JWT_SECRET: SECRET },
    '/api/v1/healthz',
  ));
  admin = await token('root', { roles: ['admin'] });
});

afterAll(async () => {
  await server?.stop();
});

/** The served document's servers and headers, for a request with `headers` (Host included, which fetch cannot set). */
async function servedWith(
  at: string,
  headers: Record<string, string>,
): Promise<{ servers: { url: string }[]; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${at}/openapi.json`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const { servers } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { servers: { url: string }[] };
        resolve({ servers, headers: response.headers });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** A folder for one client: the flow script, a strict tsconfig, ESM. */
function clientFolder(name: string, flow: string): string {
  const dir = join(WORK, `e2e-client-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(import.meta.dirname, 'clients', flow), join(dir, 'flow.ts'));
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  return dir;
}

/** Type-checks the folder under strict, then runs its flow and returns what it printed. */
async function typecheckAndRun(dir: string, args: string[]): Promise<unknown> {
  await run(process.execPath, [TSC7, '-p', 'tsconfig.json'], { cwd: dir });
  const { stdout } = await run(process.execPath, [bin('tsx/dist/cli.mjs'), 'flow.ts', ...args], { cwd: dir });
  return JSON.parse(stdout);
}

/** What either client's flow sees; the cursor's second page is the last. */
const FLOW = {
  pages: [['alpha', 'beta'], ['gamma'], null],
  patched: [200, 5],
  stale: [412, 'Precondition Failed'],
  published: [200, 'published'],
  missing: [404, 'Not Found'],
  taken: [409, 'Conflict'],
};

describe('clients generated from the served document', () => {
  it('names this server in servers, so that a client generated from the URL needs no base URL', async () => {
    const served = await http('GET', `${base()}/openapi.json`);
    expect((served.body as { servers: unknown }).servers).toEqual([{ url: base(), description: 'This server' }]);
    expect(served.headers.get('vary')).toBe('Host, X-Forwarded-Host, X-Forwarded-Proto');
    // the docs page reads it with the prefix alone, which the browser resolves against the page
    const page = await http('GET', `${base()}/docs/json`);
    expect((page.body as { servers: unknown }).servers).toEqual([{ url: '/api/v1', description: 'This server' }]);
  });

  it.each([
    [{ host: 'api.example.com:8443' }, 'http://api.example.com:8443/api/v1'],
    [{ host: '[::1]:3000' }, 'http://[::1]:3000/api/v1'],
    // a Host that is no host name, or no port, is not echoed: the server is named by its path alone
    [{ host: 'bad"host/<x>' }, '/api/v1'],
    [{ host: 'example.com:99999' }, '/api/v1'],
    // without TRUST_PROXY, what a proxy would say is not believed
    [{ host: 'a.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'b.example' }, 'http://a.example/api/v1'],
  ])('as served with %j, names %s, privately cached', async (headers, url) => {
    const answer = await servedWith(base(), headers);
    expect(answer.headers['cache-control']).toBe('private, no-cache');
    expect(answer.servers[0]?.url).toBe(url);
  });

  it('behind a proxy TRUST_PROXY admits, names the origin it forwards, an http(s) one only', async () => {
    const proxied = await startServer(
      dir,
      { DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET, TRUST_PROXY: 'loopback' },
      '/api/v1/healthz',
    );
    try {
      const at = `${proxied.url}/api/v1`;
      const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' };
      expect((await servedWith(at, forwarded)).servers[0]?.url).toBe('https://api.example.com/api/v1');
      const forged = { 'x-forwarded-proto': 'https://evil.example/#', 'x-forwarded-host': 'api.example.com' };
      expect((await servedWith(at, forged)).servers[0]?.url).toBe('/api/v1');
    } finally {
      await proxied.stop();
    }
  });

  it('openapi-typescript + openapi-fetch (default options): compiles under strict and runs the flow', async () => {
    const dir = clientFolder('openapi-fetch', 'openapi-fetch-flow.ts');
    await run(process.execPath, [
      bin('openapi-typescript/bin/cli.js'),
      `${base()}/openapi.json`,
      '-o',
      join(dir, 'api.d.ts'),
    ]);
    expect(await typecheckAndRun(dir, [base(), admin])).toEqual({ ...FLOW, embedded: [200, true] });
  });

  it("orval's fetch client (input, output and baseUrl only): compiles under strict and runs the flow", async () => {
    const dir = clientFolder('orval', 'orval-flow.ts');
    const config = {
      blog: { input: `${base()}/openapi.json`, output: { target: './client.ts', client: 'fetch', baseUrl: base() } },
    };
    writeFileSync(join(dir, 'orval.config.cjs'), `module.exports = ${JSON.stringify(config)};\n`);
    await run(process.execPath, [bin('orval/dist/bin/orval.js'), '--config', 'orval.config.cjs'], { cwd: dir });
    expect(await typecheckAndRun(dir, [admin])).toEqual(FLOW);
  });

  it("an API with events: both generators type an event as one of the resources' events, told apart by resource (issue 56)", async () => {
    const dir = clientFolder('events', 'events-types.ts');
    const printed = await cli('openapi', join(ROOT, 'examples/tasks.yaml'));
    expect(printed.code).toBe(0);
    writeFileSync(join(dir, 'tasks.json'), printed.out);
    await run(process.execPath, [bin('openapi-typescript/bin/cli.js'), 'tasks.json', '-o', 'api.d.ts'], { cwd: dir });
    const config = { tasks: { input: './tasks.json', output: { target: './client.ts', client: 'fetch' } } };
    writeFileSync(join(dir, 'orval.config.cjs'), `module.exports = ${JSON.stringify(config)};\n`);
    await run(process.execPath, [bin('orval/dist/bin/orval.js'), '--config', 'orval.config.cjs'], { cwd: dir });
    await run(process.execPath, [TSC7, '-p', 'tsconfig.json'], { cwd: dir });
  });
});
