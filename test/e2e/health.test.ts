import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import {
  generateFresh,
  http,
  startServer,
  startToFailure,
  typecheckAndBuild,
  WORK,
  type RunningServer,
} from '../helpers/project.js';
import { SECRET } from '../helpers/tokens.js';

/**
 * SPEC §11 "Health" and "Secrets": /livez, /readyz and /healthz under the prefix, in the OpenAPI document, never
 * rate-limited; DOCS=false; the warnings of NODE_ENV=production; the settings refused in one line. The database
 * outage and the drain are in test/postgres/health.test.ts and drain.test.ts.
 */
const DEFINITION = `
name: health
version: 1.0.0
prefix: /api/v1
auth: { default: public }
limits: { rateLimit: { max: 2, window: 1m } }
events: { webhooks: true }
resources:
  orders:
    fields:
      item: { type: string, required: true }
`;

let dir: string;
let url: string;
let server: RunningServer;
const HEALTH = ['/livez', '/readyz', '/healthz'];
// on a machine this busy a start can hold the event loop past MAX_EVENT_LOOP_DELAY, and the API answer 503 for it
const CALM = { MAX_EVENT_LOOP_DELAY: '0' };

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'e2e-health.yaml');
  writeFileSync(file, DEFINITION);
  dir = await generateFresh(file, 'e2e-health');
  await typecheckAndBuild(dir);
  url = await databaseUrl('health');
  server = await startServer(dir, { DATABASE_URL: url, JWT_SECRET: SECRET, ...CALM }, '/api/v1/livez');
});

afterAll(async () => {
  await server?.stop();
});

describe('the health routes', () => {
  it('answer 200 {"status":"ok"} under the prefix, and /readyz is not cached', async () => {
    for (const path of HEALTH) {
      const r = await http('GET', `${server.url}/api/v1${path}`);
      expect([path, r.status, r.body]).toEqual([path, 200, { status: 'ok' }]);
      expect((await http('GET', `${server.url}${path}`)).status).toBe(404);
    }
    expect((await http('GET', `${server.url}/api/v1/readyz`)).headers.get('cache-control')).toBe('no-store');
  });

  it('are never counted by the rate limit', async () => {
    // the definition's rate limit (2 a minute): RATE_LIMIT_MAX '' leaves it
    const limited = await startServer(
      dir,
      { DATABASE_URL: url, JWT_SECRET: SECRET, RATE_LIMIT_MAX: '', ...CALM },
      '/api/v1/livez',
    );
    try {
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await http('GET', `${limited.url}/api/v1/orders`)).status);
      expect(statuses).toEqual([200, 200, 429]);
      for (let i = 0; i < 5; i += 1) {
        for (const path of HEALTH) expect((await http('GET', `${limited.url}/api/v1${path}`)).status).toBe(200);
      }
    } finally {
      await limited.stop();
    }
  });

  it('are in the OpenAPI document', async () => {
    const document = (await http('GET', `${server.url}/api/v1/openapi.json`)).body as {
      paths: Record<string, { get?: { operationId: string; responses: Record<string, unknown> } }>;
    };
    expect(HEALTH.map((path) => document.paths[path]?.get?.operationId)).toEqual(['liveness', 'readiness', 'health']);
    expect(Object.keys(document.paths['/readyz']?.get?.responses ?? {})).toEqual(['200', '503']);
  });
});

describe('DOCS', () => {
  it('serves /docs and /openapi.json unless it is false, and then answers 404 for them', async () => {
    expect((await http('GET', `${server.url}/api/v1/docs`)).status).toBe(200);
    const off = await startServer(dir, { DATABASE_URL: url, JWT_SECRET: SECRET, DOCS: 'false' }, '/api/v1/livez');
    try {
      for (const path of ['/docs', '/openapi.json', '/docs/json'])
        expect([path, (await http('GET', `${off.url}/api/v1${path}`)).status]).toEqual([path, 404]);
      expect((await http('GET', `${off.url}/api/v1/orders`)).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});

describe('NODE_ENV=production', () => {
  const warnings =
    /CURSOR_SECRET is not set: page cursors are signed with a key derived from JWT_SECRET|WEBHOOK_SECRET_KEY is not set: webhook signing secrets are sealed with a key derived from JWT_SECRET/g;
  const started = async (extra: Record<string, string>): Promise<string[]> => {
    const one = await startServer(dir, { DATABASE_URL: url, JWT_SECRET: SECRET, ...extra }, '/api/v1/livez');
    await one.stop();
    return one.output().match(warnings) ?? [];
  };

  it('warns when CURSOR_SECRET and WEBHOOK_SECRET_KEY are derived from JWT_SECRET, and not when they are set', async () => {
    expect(await started({ NODE_ENV: 'production' })).toEqual([
      'CURSOR_SECRET is not set: page cursors are signed with a key derived from JWT_SECRET',
      'WEBHOOK_SECRET_KEY is not set: webhook signing secrets are sealed with a key derived from JWT_SECRET',
    ]);
    const own = {
      CURSOR_SECRET: 'a-cursor-secret-of-32-bytes-or-more!!',
      WEBHOOK_SECRET_KEY: 'a-webhook-key-of-32-bytes-or-more!!!',
    };
    expect(await started({ NODE_ENV: 'production', ...own })).toEqual([]);
    expect(await started({ NODE_ENV: 'development' })).toEqual([]);
  });
});

describe('settings a server refuses at start, in one line', () => {
  it.each([
    [
      { SHUTDOWN_DELAY: '5000', SHUTDOWN_TIMEOUT: '5000' },
      /^ConfigError: SHUTDOWN_TIMEOUT \(5000 ms\) must be longer than SHUTDOWN_DELAY \(5000 ms\)/,
    ],
    [{ SHUTDOWN_DELAY: '5s' }, /^ConfigError: SHUTDOWN_DELAY must be a whole number of milliseconds \(0: none\)/],
    [
      { DATABASE_CONNECT_TIMEOUT: '-1' },
      /^ConfigError: DATABASE_CONNECT_TIMEOUT must be a whole number of milliseconds/,
    ],
    [{ DOCS: 'off' }, /^ConfigError: DOCS must be true or false, not "off"/],
  ])('%o', async (settings, message) => {
    const failed = await startToFailure(dir, { DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET, ...settings });
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(message);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
  });
});
