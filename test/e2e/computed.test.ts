import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { databaseUrl, ON_POSTGRES } from '../helpers/database.js';
import { evolvingProject, http, ROOT, typecheckAndBuild } from '../helpers/project.js';
import { SECRET } from '../helpers/tokens.js';

/**
 * Computed fields (SPEC §9): never stored or accepted, valued by the user's typed function in
 * src/computed/<collection>.ts — returned by reads, listings and embeds, documented, a 400 when sent or filtered on;
 * the file grows a stub when a computed field is added and keeps the user's code, and a removed field's function
 * still compiles. An item action's handler returns the record it was given, uncast, with its ETag.
 */
const V1 = `
name: catalogue
version: 1.0.0
auth: { default: public }
resources:
  products:
    id: integer
    fields:
      name: { type: string, required: true }
      price: { type: number, required: true }
      secret: { type: string, writeOnly: true }
      priceWithVat: { type: number, computed: true, description: The price with 20% VAT. }
    actions:
      touch: { on: item }
  reviews:
    fields:
      productId: { type: ref, to: products, required: true }
      stars: { type: integer, min: 1, max: 5, required: true }
`;
const V2 = V1.replace('      priceWithVat:', '      label: { type: string, computed: true }\n      priceWithVat:');
const V3 = V2.replace(/ {6}priceWithVat:[^\n]*\n/, '');

const run = promisify(execFile);
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const PRICE_WITH_VAT = 'return Math.round(record.price * 120) / 100;';
const project = evolvingProject('computed', 'catalogue.yaml');
const { dir, generate } = project;

afterAll(() => project.remove());

it('values computed fields by the user function, everywhere a record is returned, and grows the file', async () => {
  await generate(V1);
  const computedFile = join(dir, 'src/computed/products.ts');
  const stub = readFileSync(computedFile, 'utf8');
  expect(stub).toContain('priceWithVat(_record) {\n    return null;');
  writeFileSync(
    computedFile,
    stub.replace('priceWithVat(_record) {\n    return null;', `priceWithVat(record) {\n    ${PRICE_WITH_VAT}`),
  );
  const handlersFile = join(dir, 'src/handlers/products.ts');
  const handlers = readFileSync(handlersFile, 'utf8')
    .replace("import { notImplemented } from '../http/problem.js';\n", '')
    .replace(/async touch\(_context\) \{\n[^\n]*\n/, 'async touch({ record }) {\n    return { body: record };\n');
  writeFileSync(handlersFile, handlers);
  await typecheckAndBuild(dir);
  const env = { DATABASE_URL: await databaseUrl('computed', 'sqlite:./data/catalogue.db'), JWT_SECRET: SECRET };
  const serve = (use: (url: string) => Promise<void>): Promise<void> => project.serve(env, use);

  let productId = 0;
  await serve(async (url) => {
    const created = await http('POST', `${url}/products`, { name: 'Tea', price: 10, secret: 's' });
    expect([created.status, created.body]).toMatchObject([201, { name: 'Tea', price: 10, priceWithVat: 12 }]);
    productId = (created.body as { id: number }).id;
    expect(created.body).not.toHaveProperty('secret');
    const listed = (await http('GET', `${url}/products`)).body as { items: object[] };
    expect(listed.items).toEqual([expect.objectContaining({ id: productId, priceWithVat: 12 })]);
    await http('POST', `${url}/reviews`, { productId, stars: 5 });
    const embedded = (await http('GET', `${url}/reviews?include=product`)).body as { items: { product: object }[] };
    expect(embedded.items[0]?.product).toMatchObject({ id: productId, priceWithVat: 12 });

    // never accepted, never a filter or a sort
    for (const [method, path, body] of [
      ['POST', '/products', { name: 'x', price: 1, priceWithVat: 2 }],
      ['PATCH', `/products/${productId}`, { priceWithVat: 2 }],
      ['GET', '/products?priceWithVat=12', undefined],
      ['GET', '/products?sort=priceWithVat', undefined],
    ] as const) {
      const r = await http(method, `${url}${path}`, body);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(400);
    }

    const sent = await http('POST', `${url}/products`, { name: 'x', price: 1, priceWithVat: 2 });
    expect(sent.body).toMatchObject({
      errors: [{ path: '/priceWithVat', message: 'is computed by the server: it cannot be sent' }],
    });
    for (const parameter of ['priceWithVat', 'priceWithVat[gt]']) {
      const filtered = await http('GET', `${url}/products?${parameter}=12`);
      expect(filtered.body).toMatchObject({
        errors: [{ path: `/${parameter}`, message: 'is computed by the server: a listing cannot filter by it' }],
      });
    }

    // a handler answers with the record it was given, uncast, and its ETag; an action without input takes no
    // body, even one said to be JSON (as clients send it), and its 404 names the resource
    const read = await http('GET', `${url}/products/${productId}`);
    const touched = await http('POST', `${url}/products/${productId}/touch`, '');
    expect([touched.status, touched.body]).toEqual([200, read.body]);
    expect(touched.headers.get('etag')).toBe(read.headers.get('etag'));
    for (const id of ['999999', 'abc']) {
      const missing = await http('POST', `${url}/products/${id}/touch`);
      expect([missing.status, (missing.body as { detail: string }).detail]).toEqual([404, 'no product has this id']);
    }

    const document = (await http('GET', `${url}/openapi.json`)).body as {
      components: { schemas: Record<string, { properties: Record<string, { type: unknown }> }> };
    };
    expect(document.components.schemas.Product?.properties.priceWithVat?.type).toEqual(['number', 'null']);
  });
  const migrations = () => readdirSync(join(dir, 'src/db/migrations')).filter((f) => /^\d{4}-/.test(f));
  expect(migrations()).toHaveLength(1);
  expect(readFileSync(join(dir, 'src/db/migrations', migrations()[0] ?? ''), 'utf8')).not.toMatch(/vat/i);

  // a second computed field: its stub is added, the first function kept as written, no migration
  expect(await generate(V2)).toMatch(/src\/computed\/products\.ts.*adds label/);
  const grown = readFileSync(computedFile, 'utf8');
  expect(grown).toContain(PRICE_WITH_VAT);
  expect(grown).toMatch(/label\(_record\) \{\n\s+return null;/);
  expect(migrations()).toHaveLength(1);
  await typecheckAndBuild(dir);
  await serve(async (url) => {
    const product = (await http('GET', `${url}/products/${productId}`)).body;
    expect(product).toMatchObject({ label: null, priceWithVat: 12 });
  });

  // the field removed: its function stays, named, and still compiles
  expect(await generate(V3)).toMatch(/priceWithVat have no computed field any more/);
  await typecheckAndBuild(dir);
  await serve(async (url) => {
    const product = (await http('GET', `${url}/products/${productId}`)).body;
    expect(product).toMatchObject({ label: null });
    expect(product).not.toHaveProperty('priceWithVat');
  });
});

const ON_TITLE = `
name: notes
version: 1.0.0
auth: { default: public }
resources:
  notes:
    fields:
      title: { type: string, required: true }
      titleUpper: { type: string, computed: true }
`;

it("passes the project's own tests when a computed field depends on the field they patch", async () => {
  const notes = evolvingProject('computed-on-patched', 'notes.yaml');
  try {
    await notes.generate(ON_TITLE);
    const file = join(notes.dir, 'src/computed/notes.ts');
    const stub = readFileSync(file, 'utf8');
    expect(stub).toContain('titleUpper(_record) {\n    return null;');
    writeFileSync(
      file,
      stub.replace(
        'titleUpper(_record) {\n    return null;',
        'titleUpper(record) {\n    return record.title.toUpperCase();',
      ),
    );
    // the generated tests patch title, the only field they can change: titleUpper changes with it
    const fixtures = JSON.parse(readFileSync(join(notes.dir, 'test/generated/api.json'), 'utf8')) as {
      change?: { field: string };
    }[];
    expect(fixtures[0]?.change?.field).toBe('title');
    await typecheckAndBuild(notes.dir);
    // what `npm test` runs; on the PostgreSQL run, in a schema of their own in its database
    const env = ON_POSTGRES ? { ...process.env, TEST_DATABASE_URL: process.env.RESTSMITH_TEST_PG_URL } : process.env;
    const result = await run(process.execPath, [TSX, 'test/generated/run.ts'], { cwd: notes.dir, env }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    expect(result.code, result.out.slice(-4000)).toBe(0);
    expect(result.out).toMatch(/ok \d+ - patches its title, and nothing else/);
  } finally {
    notes.remove();
  }
}, 120_000);
