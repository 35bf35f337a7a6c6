import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { evolvingProject, typecheckAndBuild } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * Relations change without losing anything (SPEC §5, regeneration): adding a many-to-many relation with its join
 * resource, renaming an inverse, turning an existing resource with two refs into a join resource and removing a
 * relation are clean regenerates — hand-written code kept byte for byte, every row kept, the new routes working.
 */
const V1 = `
name: shelf
version: 1.0.0
auth: { default: authenticated, roles: [admin] }
resources:
  authors:
    fields: { name: { type: string, required: true } }
  books:
    fields:
      title: { type: string, required: true }
      authorId: { type: ref, to: authors, required: true }
  readers:
    fields: { name: { type: string, required: true } }
  loans:
    fields:
      bookId: { type: ref, to: books, required: true, onDelete: cascade }
      readerId: { type: ref, to: readers, required: true, onDelete: cascade }
  tags:
    fields: { name: { type: string, required: true, unique: true } }
`;

/** v2: books gain tags through a new join resource, loans become the join of books and readers, an inverse renamed. */
const V2 = V1.replace(
  '      authorId: { type: ref, to: authors, required: true }',
  '      authorId: { type: ref, to: authors, required: true, inverse: writings }\n' +
    '    relations:\n      tags: { through: book-tags }\n      readers: { through: loans }',
).concat(`  book-tags:
    fields:
      bookId: { type: ref, to: books, required: true, onDelete: cascade }
      tagId: { type: ref, to: tags, required: true, onDelete: cascade }
    unique: [[bookId, tagId]]
`);

/** v3: the tags relation removed again (its join resource stays, an ordinary resource). */
const V3 = V2.replace('      tags: { through: book-tags }\n', '');

const project = evolvingProject('regen-relations', 'shelf.yaml');
const dir = project.dir;

afterAll(() => project.remove());

it('adds, renames and removes relations, and makes a join resource of an existing one, keeping edits and rows', async () => {
  const generate = async (yaml: string) => {
    await project.generate(yaml);
    await typecheckAndBuild(dir);
  };
  await generate(V1);
  const hooksFile = join(dir, 'src/hooks.ts');
  const hooks = `${readFileSync(hooksFile, 'utf8')}\n// my own note, kept through every regenerate\n`;
  writeFileSync(hooksFile, hooks);

  const env = { DATABASE_URL: await databaseUrl('regen-relations', 'sqlite:./data/shelf.db'), JWT_SECRET: SECRET };
  const admin = as(await token('root', { roles: ['admin'] }));
  const serve = <T>(use: (url: string) => Promise<T>): Promise<T> => project.serve(env, use);
  const id = (r: { body: unknown }) => (r.body as { id: string }).id;
  const seeded = await serve(async (url) => {
    const author = id(await admin('POST', `${url}/authors`, { name: 'Ann' }));
    const book = id(await admin('POST', `${url}/books`, { title: 'Dune', authorId: author }));
    const reader = id(await admin('POST', `${url}/readers`, { name: 'Rob' }));
    const loan = id(await admin('POST', `${url}/loans`, { bookId: book, readerId: reader }));
    const tag = id(await admin('POST', `${url}/tags`, { name: 'sci-fi' }));
    expect((await admin('GET', `${url}/authors/${author}/books`)).status).toBe(200);
    return { author, book, reader, loan, tag };
  });

  await generate(V2);
  expect(readFileSync(hooksFile, 'utf8')).toBe(hooks);
  await serve(async (url) => {
    // the loan made under v1 is now a link: the book's readers, and the reader's books
    const readers = (await admin('GET', `${url}/books/${seeded.book}/readers`)).body as { items: { id: string }[] };
    expect(readers.items.map((r) => r.id)).toEqual([seeded.reader]);
    expect((await admin('PUT', `${url}/books/${seeded.book}/tags/${seeded.tag}`)).status).toBe(204);
    const book = (await admin('GET', `${url}/books/${seeded.book}?include=tags,readers,author`)).body as Record<
      string,
      { items?: { id: string }[]; id?: string }
    >;
    expect(book.tags?.items?.map((t) => t.id)).toEqual([seeded.tag]);
    expect(book.readers?.items?.map((r) => r.id)).toEqual([seeded.reader]);
    expect(book.author?.id).toBe(seeded.author);
    // the inverse renamed: the path follows the name
    expect((await admin('GET', `${url}/authors/${seeded.author}/writings`)).status).toBe(200);
    expect((await admin('GET', `${url}/authors/${seeded.author}/books`)).status).toBe(404);
  });

  await generate(V3);
  expect(readFileSync(hooksFile, 'utf8')).toBe(hooks);
  await serve(async (url) => {
    expect((await admin('GET', `${url}/books/${seeded.book}/tags`)).status).toBe(404);
    // the join resource and its rows stay: the link made under v2 is a record of book-tags
    const links = (await admin('GET', `${url}/book-tags?bookId=${seeded.book}`)).body as { items: unknown[] };
    expect(links.items).toHaveLength(1);
    expect((await admin('GET', `${url}/loans/${seeded.loan}`)).status).toBe(200);
    expect((await admin('GET', `${url}/books/${seeded.book}/readers`)).status).toBe(200);
  });
}, 300_000);
