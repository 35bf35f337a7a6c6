import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { cli, http, ROOT, startServer } from '../helpers/project.js';
import { SECRET } from '../helpers/tokens.js';

const run = promisify(execFile);

/**
 * The one test that treats a generated project as a user does: outside this repository, with its own
 * `npm install` (better-sqlite3 compiles from source: minutes, not seconds), its own scripts, its own server.
 */
const dir = mkdtempSync(join(tmpdir(), 'restsmith-standalone-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('installs, type-checks, tests and serves on its own', { timeout: 900_000 }, async () => {
  const generated = await cli('generate', `${ROOT}/examples/blog.yaml`, '--out', dir);
  expect(generated.code).toBe(0);

  const npm = (...args: string[]) => run('npm', args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  await npm('install', '--no-audit', '--no-fund');
  await npm('run', 'typecheck');
  const tests = await npm('test');
  expect(tests.stdout).toMatch(/# fail 0/);
  expect(tests.stdout).toMatch(/# pass [1-9]/);
  await npm('run', 'build');

  const server = await startServer(dir, { JWT_SECRET: SECRET }, '/api/v1/healthz');
  try {
    const health = await http('GET', `${server.url}/api/v1/healthz`);
    expect(health.body).toEqual({ status: 'ok' });
  } finally {
    await server.stop();
  }
});
