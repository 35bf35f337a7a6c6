import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { serveGenerated, WORK, type RunningServer } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * Nested routes announce the deprecation of the resource they list, create or link (SPEC §7, issue 56 item 19):
 * `GET`/`POST /books/{id}/old-reviews` where old-reviews is deprecated, and the link routes and listing of
 * `/books/{id}/tags` where the join resource book-tags is; both in their headers and in the OpenAPI document. The
 * books' own routes announce nothing.
 */
const DEFINITION = `
name: shelves
version: 1.0.0
auth: { default: public, adminRole: admin }
resources:
  books:
    fields:
      title: { type: string, required: true }
    relations:
      tags: { through: book-tags }
  old-reviews:
    deprecated: { since: 2026-11-01, sunset: 2027-06-30, link: "https://example.com/reviews-v2" }
    fields:
      bookId: { type: ref, to: books, required: true, onDelete: cascade }
      text: { type: string, required: true }
  tags:
    fields:
      name: { type: string, required: true, unique: true }
  book-tags:
    deprecated: { since: 2026-12-01 }
    fields:
      bookId: { type: ref, to: books, required: true, onDelete: cascade }
      tagId: { type: ref, to: tags, required: true, onDelete: cascade }
    unique: [[bookId, tagId]]
`;

let server: RunningServer;
let call: ReturnType<typeof as>;
type Rec = Record<string, unknown>;

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'shelves.yaml');
  writeFileSync(file, DEFINITION);
  ({ server } = await serveGenerated(file, 'e2e-nested-deprecation', {
    DATABASE_URL: await databaseUrl('shelves'),
    JWT_SECRET: SECRET,
  }));
  call = as(await token('admin', { roles: ['admin'] }));
}, 240_000);

afterAll(async () => {
  await server?.stop();
});

const REVIEWS = ['@1793491200', 'Wed, 30 Jun 2027 00:00:00 GMT', '<https://example.com/reviews-v2>; rel="deprecation"'];
const LINKS = ['@1796083200', null, null];

describe('nested routes of a deprecated target or join resource', () => {
  it('send the Deprecation headers of the resource they list, create or link', async () => {
    const book = (await call('POST', `${server.url}/books`, { title: 'Dune' })).body as Rec;
    const tag = (await call('POST', `${server.url}/tags`, { name: 'sci-fi' })).body as Rec;
    const under = `${server.url}/books/${String(book.id)}`;
    const headers = (r: { headers: Headers }) => [
      r.headers.get('deprecation'),
      r.headers.get('sunset'),
      r.headers.get('link')?.replace(/; type="text\/html"$/, '') ?? null,
    ];
    const answers: [string, number, (string | null)[]][] = [];
    const record = async (method: string, url: string, body?: unknown) => {
      const r = await call(method, url, body);
      answers.push([`${method} ${url.slice(server.url.length)}`, r.status, headers(r)]);
    };
    await record('POST', `${under}/old-reviews`, { text: 'a classic' });
    await record('GET', `${under}/old-reviews`);
    await record('DELETE', `${under}/old-reviews`);
    await record('PUT', `${under}/tags/${String(tag.id)}`);
    await record('GET', `${under}/tags`);
    await record('DELETE', `${under}/tags/${String(tag.id)}`);
    await record('GET', `${server.url}/tags/${String(tag.id)}/books`);
    await record('GET', under);
    const path = (p: string) => p.replace(String(book.id), '{id}').replace(String(tag.id), '{tagId}');
    expect(answers.map(([what, status, sent]) => [path(what), status, sent])).toEqual([
      ['POST /books/{id}/old-reviews', 201, REVIEWS],
      ['GET /books/{id}/old-reviews', 200, REVIEWS],
      ['DELETE /books/{id}/old-reviews', 405, REVIEWS],
      ['PUT /books/{id}/tags/{tagId}', 204, LINKS],
      ['GET /books/{id}/tags', 200, LINKS],
      ['DELETE /books/{id}/tags/{tagId}', 204, LINKS],
      ['GET /tags/{tagId}/books', 200, LINKS],
      ['GET /books/{id}', 200, [null, null, null]],
    ]);
  });

  it('are deprecated operations in the OpenAPI document', async () => {
    type Doc = { paths: Record<string, Record<string, { deprecated?: boolean; description?: string }>> };
    const doc = (await call('GET', `${server.url}/openapi.json`)).body as Doc;
    const flags = Object.entries(doc.paths)
      .filter(([p]) => p.startsWith('/books') || p.startsWith('/tags/{id}/'))
      .flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => `${m} ${p} ${String(op.deprecated)}`));
    expect(flags.sort()).toEqual(
      [
        'get /books undefined',
        'post /books undefined',
        'get /books/{id} undefined',
        'put /books/{id} undefined',
        'patch /books/{id} undefined',
        'delete /books/{id} undefined',
        'get /books/{id}/old-reviews true',
        'post /books/{id}/old-reviews true',
        // the join resource's own records under each side
        'get /books/{id}/book-tags true',
        'post /books/{id}/book-tags true',
        'get /tags/{id}/book-tags true',
        'post /tags/{id}/book-tags true',
        'get /books/{id}/tags true',
        'put /books/{id}/tags/{tagId} true',
        'delete /books/{id}/tags/{tagId} true',
        'get /tags/{id}/books true',
        'put /tags/{id}/books/{bookId} true',
        'delete /tags/{id}/books/{bookId} true',
      ].sort(),
    );
    expect(doc.paths['/books/{id}/old-reviews']?.get?.description).toMatch(
      /Deprecated since 2026-11-01; it stops answering on 2027-06-30; see https:\/\/example\.com\/reviews-v2\./,
    );
  });
});
