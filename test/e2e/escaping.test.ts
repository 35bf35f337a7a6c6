import { afterAll, beforeAll, expect, it } from 'vitest';
import { http, ROOT, type RunningServer, serveGenerated } from '../helpers/project.js';
import { databaseUrl } from '../helpers/database.js';

/** Every string of a definition lands escaped: the project compiles, and each value round-trips unchanged. */
let server: RunningServer;

beforeAll(async () => {
  ({ server } = await serveGenerated(`${ROOT}/test/e2e/fixtures/hostile.yaml`, 'e2e-hostile', {
    DATABASE_URL: await databaseUrl('hostile'),
  }));
});

afterAll(async () => {
  await server?.stop();
});

const LABEL = 'it\'s a "quote", a `tick`, ${interpolation}, a \\ backslash and */';
const KINDS = ["a'b", 'c"d', 'e`f', '${g}', '*/h', 'i\\j', '${process.exit(42)}', 'a`+b+`'];

it('stores defaults exactly as written', async () => {
  const r = await http('POST', `${server.url}/things`, {});
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ label: LABEL, kind: "a'b" });
});

it('accepts every enum value exactly as written, and nothing else', async () => {
  for (const kind of KINDS) {
    const r = await http('POST', `${server.url}/things`, { kind });
    expect(r.status, kind).toBe(201);
    expect((r.body as { kind: string }).kind).toBe(kind);
  }
  expect((await http('POST', `${server.url}/things`, { kind: "a\\'b" })).status).toBe(400);
});

it('keeps a pattern with backslashes intact', async () => {
  expect((await http('POST', `${server.url}/things`, { code: 'AB-12' })).status).toBe(201);
  expect((await http('POST', `${server.url}/things`, { code: 'AB-1x' })).status).toBe(400);
});

it('prints an action precondition with interpolation-like values as text, and runs none of it', async () => {
  const thing = (await http('POST', `${server.url}/things`, { kind: '${process.exit(42)}' })).body as { id: string };
  const moved = await http('POST', `${server.url}/things/${thing.id}/go`);
  expect(moved.status).toBe(200);
  const again = await http('POST', `${server.url}/things/${thing.id}/go`);
  expect(again.status).toBe(409);
  expect((again.body as { detail: string }).detail).toBe(
    'go needs kind to be one of "${process.exit(42)}", "a`+b+`"; kind is "*/h"',
  );
  expect((await http('GET', `${server.url}/healthz`)).status).toBe(200);
});
