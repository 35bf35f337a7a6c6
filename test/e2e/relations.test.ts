import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, loadBuilt, ROOT, typecheckAndBuild } from '../helpers/project.js';
import { SECRET, token } from '../helpers/tokens.js';

/**
 * Relations (SPEC §5) on the library example, in process over Fastify's inject, on SQLite or PostgreSQL
 * (RESTSMITH_TEST_DB): nested listings, `include` to one and to many and deeper, each embedded record filtered by its
 * own resource's read rule, and one query per included relation whatever the page size (statements are counted on
 * the database the app is given).
 */
type Rec = Record<string, unknown> & { id: string };
type Page = { items: Rec[]; nextCursor: string | null };
interface Statement {
  get(params: readonly unknown[]): Promise<unknown>;
  all(params: readonly unknown[]): Promise<unknown[]>;
  values(params: readonly unknown[]): Promise<unknown[][]>;
  run(params: readonly unknown[]): Promise<number>;
}
interface Db {
  prepare(sql: string): Statement;
  prepareText(sql: string, options?: object): Statement;
  prepareList(
    sql: string,
    facts: object,
    options?: object,
  ): { all(params: readonly unknown[], client: () => string): Promise<unknown[]> };
  close(): Promise<void>;
}
interface Inject {
  inject(options: { method: string; url: string; headers?: Record<string, string>; payload?: unknown }): Promise<{
    statusCode: number;
    body: string;
    headers: Record<string, unknown>;
  }>;
  close(): Promise<void>;
}

let app: Inject;
let db: Db;
let statements = 0;
const tokens: Record<string, string> = {};

/** The database, with every statement run counted. */
function counted(inner: Db): Db {
  const wrap = (s: Statement): Statement => ({
    get: (p) => (statements++, s.get(p)),
    all: (p) => (statements++, s.all(p)),
    values: (p) => (statements++, s.values(p)),
    run: (p) => (statements++, s.run(p)),
  });
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'prepare') return (sql: string) => wrap(target.prepare(sql));
      if (key === 'prepareText') return (sql: string, options?: object) => wrap(target.prepareText(sql, options));
      // a listing's statement (see db/database.ts ListStatement)
      if (key === 'prepareList')
        return (sql: string, facts: object, options?: object) => {
          const listed = target.prepareList(sql, facts, options);
          return { all: (p: readonly unknown[], client: () => string) => (statements++, listed.all(p, client)) };
        };
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function call(method: string, url: string, as?: string, payload?: unknown) {
  const headers: Record<string, string> = as === undefined ? {} : { authorization: `Bearer ${tokens[as]}` };
  const r = await app.inject({ method, url, headers, ...(payload !== undefined && { payload }) });
  return {
    status: r.statusCode,
    body: r.body === '' ? undefined : (JSON.parse(r.body) as unknown),
    headers: r.headers,
  };
}
const ok = async (method: string, url: string, as?: string, payload?: unknown) => {
  const r = await call(method, url, as, payload);
  if (r.status >= 300) throw new Error(`${method} ${url} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Rec & Page;
};

const authors: Rec[] = [];
const books: Rec[] = [];

beforeAll(async () => {
  const dir = await generateFresh(join(ROOT, 'examples/library.yaml'), 'e2e-relations');
  // the embedded shapes are typed for the users' own code: a to-one record or null, a page of the others
  writeFileSync(
    join(dir, 'src/embedded-types.ts'),
    "import type { BookWithRelations } from './resources/books/model.js';\n" +
      'export const firstTag = (book: BookWithRelations): string | undefined =>\n' +
      '  book.tags?.items[0]?.name ?? book.author?.books?.items[0]?.title ?? book.editor?.fullName;\n',
  );
  await typecheckAndBuild(dir);
  const dist = join(dir, 'dist');
  const load = <T>(file: string) => loadBuilt<T>(dist, file);
  const { openDatabase } = await load<{ openDatabase: (url: string) => Db }>('db/open.js');
  const { migrate } = await load<{ migrate: (db: Db) => Promise<unknown> }>('db/migrate.js');
  const { buildApp } = await load<{ buildApp: (o: object) => Promise<Inject> }>('app.js');
  db = openDatabase(await databaseUrl('relations'));
  await migrate(db);
  app = await buildApp({ db: counted(db), auth: { secret: SECRET }, rateLimitMax: 100_000 });
  tokens.librarian = await token('lib', { roles: ['librarian'] });
  tokens.alice = await token('alice');
  tokens.bob = await token('bob');

  for (const [fullName, country] of [
    ['Ursula', 'US'],
    ['Stanislaw', 'PL'],
    ['Tove', 'FI'],
  ] as const)
    authors.push(await ok('POST', '/authors', 'librarian', { fullName, country }));
  const [ursula, stanislaw, tove] = authors as [Rec, Rec, Rec];
  // Ursula wrote 25 (more than a page of 20), edited by Stanislaw every other one; Tove wrote none
  for (let i = 0; i < 25; i++) {
    const editorId = i % 2 === 0 ? stanislaw.id : null;
    books.push(
      await ok('POST', '/books', 'librarian', { title: `U${i}`, year: 1960 + i, authorId: ursula.id, editorId }),
    );
  }
  books.push(await ok('POST', '/books', 'librarian', { title: 'Solaris', year: 1961, authorId: stanislaw.id }));
  for (const [who, book, stars] of [
    ['alice', 0, 5],
    ['bob', 0, 2],
    ['alice', 1, 4],
  ] as const)
    await ok('POST', '/reviews', who, { bookId: books[book]?.id, stars, text: 'x', draftNotes: 'private' });
  expect(tove.id).toBeDefined();
}, 240_000);

afterAll(async () => {
  await app?.close();
  await db?.close();
});

describe('nested listings', () => {
  it('is the listing of the other resource restricted to the parent, every parameter included', async () => {
    const ursula = authors[0]!;
    const nested: Rec[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await ok(
        'GET',
        `/authors/${ursula.id}/books?limit=7&sort=-year${cursor ? `&cursor=${cursor}` : ''}`,
      );
      nested.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    const flat = await ok('GET', `/books?authorId=${ursula.id}&limit=100&sort=-year`);
    expect(nested.map((b) => b.id)).toEqual(flat.items.map((b) => b.id));
    expect(nested).toHaveLength(25);
    const filtered = await ok('GET', `/authors/${ursula.id}/books?year[gte]=1980&limit=100`);
    expect(filtered.items.map((b) => b.year)).toEqual([1980, 1981, 1982, 1983, 1984]);
    const edited = await ok('GET', `/authors/${authors[1]!.id}/edited-books?limit=100`);
    expect(edited.items).toHaveLength(13);
  });

  it('answers 404 under a parent that does not exist or that the caller may not read', async () => {
    expect((await call('GET', '/authors/01900000-0000-7000-8000-000000000000/books')).status).toBe(404);
    const list = await ok('POST', '/reading-lists', 'alice', { name: 'favourites' });
    await ok('POST', '/list-entries', 'alice', { readingListId: list.id, bookId: books[0]?.id });
    expect((await ok('GET', `/reading-lists/${list.id}/list-entries`, 'alice')).items).toHaveLength(1);
    const other = await call('GET', `/reading-lists/${list.id}/list-entries`, 'bob');
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ status: 404, detail: 'no reading list has this id' });
    expect((await call('GET', `/reading-lists/${list.id}/list-entries`)).status).toBe(401);
  });
});

describe('include', () => {
  it('embeds a to-one relation, or null', async () => {
    const page = await ok('GET', '/books?include=author,editor&limit=3');
    for (const book of page.items) {
      expect((book.author as Rec).id).toBe(book.authorId);
      expect(book.editor === null ? null : (book.editor as Rec).id).toBe(book.editorId);
    }
    expect(page.items.map((b) => b.editor === null)).toEqual([false, true, false]);
    const one = await ok('GET', `/books/${books[25]?.id}?include=author`);
    expect((one.author as Rec).fullName).toBe('Stanislaw');
  });

  it('embeds a page of a to-many relation whose cursor continues on the nested route', async () => {
    const ursula = await ok('GET', `/authors/${authors[0]?.id}?include=books`);
    const embedded = ursula.books as Page;
    expect(embedded.items).toHaveLength(20);
    expect(embedded.nextCursor).not.toBeNull();
    const rest = await ok('GET', `/authors/${authors[0]?.id}/books?cursor=${embedded.nextCursor}`);
    expect([...embedded.items, ...rest.items].map((b) => b.id)).toEqual(books.slice(0, 25).map((b) => b.id));
    const tove = await ok('GET', `/authors/${authors[2]?.id}?include=books,editedBooks`);
    expect(tove.books).toEqual({ items: [], nextCursor: null });
  });

  it('filters every embedded record by its own read rule, and never embeds a write-only field', async () => {
    const reviewsOf = async (as?: string) => {
      const page = await ok('GET', `/books?include=reviews&limit=2`, as);
      return page.items.map((b) => (b.reviews as Page).items.map((r) => `${r.readerId}:${r.stars}`));
    };
    expect(await reviewsOf('librarian')).toEqual([['alice:5', 'bob:2'], ['alice:4']]);
    expect(await reviewsOf('alice')).toEqual([['alice:5'], ['alice:4']]);
    expect(await reviewsOf('bob')).toEqual([['bob:2'], []]);
    // reading reviews needs a token: an anonymous caller gets empty pages, never a 401 or 403
    expect(await reviewsOf()).toEqual([[], []]);
    const page = await ok('GET', `/books?include=reviews&limit=1`, 'librarian');
    expect(JSON.stringify(page)).not.toContain('draftNotes');
  });

  it('goes deeper along dotted paths, to limits.includeDepth', async () => {
    const page = await ok('GET', `/authors?include=books.reviews,books.editor&limit=1`, 'alice');
    const first = (page.items[0]?.books as Page).items[0]!;
    expect((first.editor as Rec).fullName).toBe('Stanislaw');
    expect((first.reviews as Page).items.map((r) => r.stars)).toEqual([5]);
    const deep = await ok('GET', `/reviews?include=book.author&limit=1`, 'alice');
    expect(((deep.items[0]?.book as Rec).author as Rec).fullName).toBe('Ursula');
  });

  it('refuses an unknown relation or a path deeper than allowed with a 400', async () => {
    for (const include of ['publisher', 'books.reviews.book', 'author']) {
      const r = await call('GET', `/authors?include=${include}`);
      expect(r.status, include).toBe(400);
      expect(r.body).toMatchObject({ status: 400, errors: [{ path: '/include/0' }] });
      const [error] = (r.body as { errors: { message: string }[] }).errors;
      expect(error?.message).toMatch(
        /^must be a relation of this collection, or a dotted path of them at most 2 deep: "books", /,
      );
    }
    const twice = await call('GET', '/authors?include=books,books');
    expect(twice.body).toMatchObject({
      errors: [{ path: '/include', message: 'must not repeat a value (items 0 and 1 are the same)' }],
    });
  });

  it('names the resource when a path names no record', async () => {
    for (const url of ['/books/abc', `/books/${books[0]!.id.replace(/.$/, 'x')}`, '/authors/abc/books']) {
      const r = await call('GET', url);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({
        detail: url.startsWith('/authors') ? 'no author has this id' : 'no book has this id',
      });
    }
  });

  it('costs one query per included relation, whatever the page size', async () => {
    const cost = async (limit: number) => {
      const before = statements;
      const page = await ok('GET', `/books?include=author,editor,reviews.book&limit=${limit}`, 'librarian');
      expect(page.items).toHaveLength(limit);
      return statements - before;
    };
    const one = await cost(1);
    // 20 books embed up to 20 + 20 + 400 + 400 records: within limits.include.maxRecords (1,000)
    expect(await cost(20)).toBe(one);
    // the listing, then author, editor, reviews and reviews.book
    expect(one).toBe(5);
  });
});

// runs last: it adds books to Tove, whom the tests above expect to have none
describe('nested creates', () => {
  it('creates a record whose ref field is the parent of the path, by its own create rule', async () => {
    const tove = authors[2]!;
    const created = await call('POST', `/authors/${tove.id}/books`, 'librarian', { title: 'Moomin', year: 1945 });
    expect(created.status).toBe(201);
    const book = created.body as Rec;
    expect(book).toMatchObject({ title: 'Moomin', authorId: tove.id, editorId: null });
    expect(created.headers.location).toBe(`/books/${book.id}`);
    expect(created.headers.etag).toBe('"1"');
    expect((await ok('GET', `/authors/${tove.id}/books`)).items.map((b) => b.id)).toEqual([book.id]);
    // the same id in the body is the same request; another one is a 400 naming the field
    const same = await call('POST', `/authors/${tove.id}/books`, 'librarian', { title: 'B', authorId: tove.id });
    expect(same.status).toBe(201);
    const other = await call('POST', `/authors/${tove.id}/books`, 'librarian', {
      title: 'C',
      authorId: authors[0]!.id,
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ status: 400, errors: [{ path: '/authorId' }] });
    // another ref field of the same target: its own path
    const edited = await ok('POST', `/authors/${tove.id}/edited-books`, 'librarian', {
      title: 'D',
      authorId: authors[0]!.id,
    });
    expect(edited).toMatchObject({ authorId: authors[0]!.id, editorId: tove.id });
    // books' create rule (admin or librarian) applies; then the body is validated as a create's is
    expect((await call('POST', `/authors/${tove.id}/books`, 'alice', { title: 'E' })).status).toBe(403);
    expect((await call('POST', `/authors/${tove.id}/books`)).status).toBe(401);
    expect((await call('POST', `/authors/${tove.id}/books`, 'librarian', { year: 1 })).status).toBe(400);
    expect((await call('POST', `/authors/${tove.id}/books`, 'librarian', { title: 'F', id: 'x' })).status).toBe(400);
  });

  it('answers 404 under a parent that does not exist or that the caller may not read, and creates nothing', async () => {
    const before = (await ok('GET', '/list-entries?limit=100', 'librarian')).items.length;
    const missing = await call('POST', '/authors/01900000-0000-7000-8000-000000000000/books', 'librarian', {
      title: 'G',
    });
    expect(missing.status).toBe(404);
    const list = await ok('POST', '/reading-lists', 'alice', { name: 'to read' });
    const bob = await call('POST', `/reading-lists/${list.id}/list-entries`, 'bob', { bookId: books[0]!.id });
    expect(bob.status).toBe(404);
    expect(bob.body).toMatchObject({ detail: 'no reading list has this id' });
    expect((await ok('GET', '/list-entries?limit=100', 'librarian')).items).toHaveLength(before);
    const mine = await ok('POST', `/reading-lists/${list.id}/list-entries`, 'alice', { bookId: books[0]!.id });
    expect(mine.readingListId).toBe(list.id);
  });

  it('sets a read-only owner field to the caller, as the create of the target does', async () => {
    const review = await ok('POST', `/books/${books[3]!.id}/reviews`, 'bob', { stars: 3 });
    expect(review).toMatchObject({ bookId: books[3]!.id, readerId: 'bob', stars: 3 });
  });

  it('honours Idempotency-Key, and refuses the methods the path does not take', async () => {
    const tove = authors[2]!;
    const send = () =>
      app.inject({
        method: 'POST',
        url: `/authors/${tove.id}/books`,
        headers: { authorization: `Bearer ${tokens.librarian}`, 'idempotency-key': 'nested-1' },
        payload: { title: 'Once' },
      });
    const [first, again] = [await send(), await send()];
    expect(first.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    const titles = (await ok('GET', `/authors/${tove.id}/books?limit=100`)).items.map((b) => b.title);
    expect(titles.filter((t) => t === 'Once')).toHaveLength(1);
    const put = await call('PUT', `/authors/${tove.id}/books`, 'librarian', {});
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, POST');
  });
});

describe('refs in a body', () => {
  const nobody = '01900000-0000-7000-8000-000000000000';
  const entries = async () => (await ok('GET', '/list-entries?limit=100', 'librarian')).items.length;

  it('must name a record the caller may read: another one is answered as a missing one, a 409', async () => {
    const list = await ok('POST', '/reading-lists', 'alice', { name: 'mine' });
    const before = await entries();
    const theirs = await call('POST', '/list-entries', 'bob', { readingListId: list.id, bookId: books[0]!.id });
    const missing = await call('POST', '/list-entries', 'bob', { readingListId: nobody, bookId: books[0]!.id });
    expect(theirs.status).toBe(409);
    expect(theirs.body).toMatchObject({
      detail: `no reading list you may read has the id sent as readingListId ("${list.id}")`,
      errors: [{ path: '/readingListId', message: 'must be the id of a reading list you may read' }],
    });
    // the same answer for an id nobody has: whether another reader's list exists does not show
    expect(missing.status).toBe(409);
    expect((missing.body as { detail: string }).detail.replace(nobody, list.id)).toBe(
      (theirs.body as { detail: string }).detail,
    );
    // under a book, the same: the body's other ref is checked as the parent is
    const nested = await call('POST', `/books/${books[0]!.id}/list-entries`, 'bob', { readingListId: list.id });
    expect(nested.status).toBe(409);
    expect(await entries()).toBe(before);
    // the owner, and an administrator, may
    expect(
      (await call('POST', '/list-entries', 'alice', { readingListId: list.id, bookId: books[0]!.id })).status,
    ).toBe(201);
    expect(await entries()).toBe(before + 1);
  });

  it('names only the ref fields whose records are missing', async () => {
    const [ursula] = authors as [Rec];
    const created = await call('POST', '/books', 'librarian', { title: 'X', authorId: ursula.id, editorId: nobody });
    expect(created.status).toBe(409);
    expect(created.body).toMatchObject({
      detail: `no author has the id sent as editorId ("${nobody}")`,
      errors: [{ path: '/editorId', message: 'must be the id of an existing author' }],
    });
    expect((created.body as { errors: unknown[] }).errors).toHaveLength(1);
    const both = await call('POST', '/books', 'librarian', { title: 'X', authorId: nobody, editorId: nobody });
    expect((both.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['/authorId', '/editorId']);
    // PUT and PATCH too
    const book = books[1]!;
    const patched = await call('PATCH', `/books/${book.id}`, 'librarian', { editorId: nobody });
    expect(patched.status).toBe(409);
    expect(patched.body).toMatchObject({ errors: [{ path: '/editorId' }] });
    const put = await call('PUT', `/books/${book.id}`, 'librarian', { title: 'Y', authorId: nobody });
    expect(put.body).toMatchObject({ status: 409, errors: [{ path: '/authorId' }] });
    expect((await ok('GET', `/books/${book.id}`)).title).toBe(book.title);
  });
});

describe('many-to-many', () => {
  const tags: Rec[] = [];
  const link = (method: string, book: number, tag: number, as = 'librarian') =>
    call(method, `/books/${books[book]!.id}/tags/${tags[tag]!.id}`, as);

  beforeAll(async () => {
    for (const name of ['sci-fi', 'classic', 'polish']) tags.push(await ok('POST', '/tags', 'librarian', { name }));
  });

  it('links (idempotent) and unlinks, by the join resource rules', async () => {
    expect((await link('PUT', 0, 0)).status).toBe(204);
    expect((await link('PUT', 0, 0)).status).toBe(204);
    expect((await link('PUT', 0, 1)).status).toBe(204);
    expect((await link('PUT', 25, 0)).status).toBe(204);
    expect((await link('PUT', 25, 2)).status).toBe(204);
    // one record per link, whatever the number of PUTs; the unique key refuses a second one made directly
    expect((await ok('GET', `/book-tags?bookId=${books[0]!.id}`)).items).toHaveLength(2);
    const twice = await call('POST', '/book-tags', 'librarian', { bookId: books[0]!.id, tagId: tags[0]!.id });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({
      detail: 'a book tag with this bookId and tagId already exists',
      errors: [
        { path: '/bookId', message: 'is taken: another record has the same bookId and tagId' },
        { path: '/tagId', message: 'is taken: another record has the same bookId and tagId' },
      ],
    });
    expect((await link('PUT', 1, 0, 'alice')).status).toBe(403);
    expect((await call('PUT', `/books/${books[1]!.id}/tags/${tags[0]!.id}`)).status).toBe(401);
    const unknown = await call('PUT', `/books/${books[1]!.id}/tags/01900000-0000-7000-8000-000000000000`, 'librarian');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ detail: 'no tag has this tagId' });
    // an id that cannot be one is a 404 naming the record it was to name, on either end and either method
    for (const [method, path, detail] of [
      ['PUT', `/books/${books[1]!.id}/tags/not-an-id`, 'no tag has this tagId'],
      ['DELETE', `/books/${books[1]!.id}/tags/not-an-id`, 'no tag has this tagId'],
      ['PUT', `/books/not-an-id/tags/${tags[0]!.id}`, 'no book has this id'],
    ] as const) {
      const malformed = await call(method, path, 'librarian');
      expect(malformed.status, `${method} ${path}`).toBe(404);
      expect(malformed.body, `${method} ${path}`).toMatchObject({ detail });
    }
    expect((await link('PUT', 1, 1)).status).toBe(204);
    expect((await link('DELETE', 1, 1)).status).toBe(204);
    const again = await link('DELETE', 1, 1);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ detail: 'this book is not linked to this tag' });
    const post = await link('POST', 1, 1);
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('PUT, DELETE');
  });

  it('lists the linked records in both directions, with the listing parameters of the other resource', async () => {
    const names = async (url: string) => (await ok('GET', url)).items.map((t) => t.name ?? t.title);
    expect(await names(`/books/${books[0]!.id}/tags`)).toEqual(['sci-fi', 'classic']);
    expect(await names(`/books/${books[0]!.id}/tags?sort=name`)).toEqual(['classic', 'sci-fi']);
    expect(await names(`/books/${books[0]!.id}/tags?name=classic`)).toEqual(['classic']);
    expect(await names(`/tags/${tags[0]!.id}/books?sort=title`)).toEqual(['Solaris', 'U0']);
    const first = await ok('GET', `/tags/${tags[0]!.id}/books?limit=1`);
    const rest = await ok('GET', `/tags/${tags[0]!.id}/books?limit=1&cursor=${first.nextCursor}`);
    expect([...first.items, ...rest.items].map((b) => b.title)).toEqual(['U0', 'Solaris']);
    expect(rest.nextCursor).toBeNull();
    expect((await call('GET', `/tags/01900000-0000-7000-8000-000000000000/books`)).status).toBe(404);
  });

  it('embeds the linked records as a page, each by its own read rule, one query whatever the page size', async () => {
    const book = await ok('GET', `/books/${books[25]!.id}?include=tags`);
    expect((book.tags as Page).items.map((t) => t.name)).toEqual(['sci-fi', 'polish']);
    const tag = await ok('GET', `/tags/${tags[0]!.id}?include=books.author`);
    expect((tag.books as Page).items.map((b) => (b.author as Rec).fullName)).toEqual(['Ursula', 'Stanislaw']);
    // reading lists are their reader's alone: through list-entries, each reader sees only theirs
    const aliceList = await ok('POST', '/reading-lists', 'alice', { name: 'alice reads' });
    const bobList = await ok('POST', '/reading-lists', 'bob', { name: 'bob reads' });
    for (const list of [aliceList, bobList]) {
      const as = list === aliceList ? 'alice' : 'bob';
      expect((await call('PUT', `/reading-lists/${list.id}/books/${books[2]!.id}`, as)).status).toBe(204);
    }
    // bob cannot link to alice's list: it is not his to read
    expect((await call('PUT', `/reading-lists/${aliceList.id}/books/${books[3]!.id}`, 'bob')).status).toBe(404);
    const listsOf = async (as?: string) =>
      ((await ok('GET', `/books/${books[2]!.id}?include=readingLists`, as)).readingLists as Page).items.map(
        (l) => l.name,
      );
    expect(await listsOf('alice')).toEqual(['alice reads']);
    expect(await listsOf('bob')).toEqual(['bob reads']);
    expect(await listsOf()).toEqual([]);
    const nested = await ok('GET', `/books/${books[2]!.id}/reading-lists`, 'bob');
    expect(nested.items.map((l) => l.name)).toEqual(['bob reads']);
    const cost = async (limit: number) => {
      const before = statements;
      const page = await ok('GET', `/books?include=tags&limit=${limit}`, 'librarian');
      expect(page.items).toHaveLength(limit);
      return statements - before;
    };
    expect(await cost(1)).toBe(2);
    expect(await cost(26)).toBe(2);
  });

  it('drops the links with the record they link (onDelete: cascade)', async () => {
    const admin = await token('root', { roles: ['admin'] });
    tokens.admin = admin;
    expect((await call('DELETE', `/tags/${tags[2]!.id}`, 'admin')).status).toBe(204);
    expect((await ok('GET', `/book-tags?tagId=${tags[2]!.id}`)).items).toEqual([]);
    const book = await ok('GET', `/books/${books[25]!.id}?include=tags`);
    expect((book.tags as Page).items.map((t) => t.name)).toEqual(['sci-fi']);
  });
});

describe('filters through relations', () => {
  const titles = async (url: string, as?: string) => (await ok('GET', url, as)).items.map((b) => b.title);

  it('filters by a field of the to-one record, with the operators of its type', async () => {
    expect(await titles('/books?author.country=PL&limit=100')).toEqual(['Solaris']);
    expect(await titles('/books?author.fullName[contains]=STAN&limit=100')).toEqual(['Solaris']);
    expect(await titles('/books?author.country[in]=PL,FI&sort=title&limit=100')).toEqual(
      await titles('/books?authorId[in]=' + `${authors[1]!.id},${authors[2]!.id}&sort=title&limit=100`),
    );
    // with the listing's own filters and paging
    const page = await ok('GET', '/books?author.country=US&year[gte]=1980&limit=2');
    expect(page.items.map((b) => b.title)).toEqual(['U20', 'U21']);
    const next = await ok('GET', `/books?author.country=US&year[gte]=1980&limit=2&cursor=${page.nextCursor}`);
    expect(next.items.map((b) => b.title)).toEqual(['U22', 'U23']);
  });

  it('filters by a to-many relation: at least one related record matches', async () => {
    expect(await titles('/books?tags.name=sci-fi&limit=100')).toEqual(['U0', 'Solaris']);
    expect(await titles('/books?tags.name[in]=classic,polish&limit=100')).toEqual(['U0']);
    expect(await titles('/authors/' + `${authors[0]!.id}/books?tags.name=sci-fi`)).toEqual(['U0']);
    expect(await titles('/books?reviews.stars[gte]=4&limit=100', 'librarian')).toEqual(['U0', 'U1']);
  });

  it('looks only at the related records the caller may read', async () => {
    // bob's review of U0 has 2 stars: alice cannot read it, so for her no book has a 2-star review
    expect(await titles('/books?reviews.stars=2&limit=100', 'librarian')).toEqual(['U0']);
    expect(await titles('/books?reviews.stars=2&limit=100', 'bob')).toEqual(['U0']);
    expect(await titles('/books?reviews.stars=2&limit=100', 'alice')).toEqual([]);
    expect(await titles('/books?reviews.stars=2&limit=100')).toEqual([]);
    // reading lists are their reader's: through list-entries, bob finds only the books of his lists
    expect(await titles('/books?readingLists.name=alice reads&limit=100', 'alice')).toEqual(['U2']);
    expect(await titles('/books?readingLists.name=alice reads&limit=100', 'bob')).toEqual([]);
  });

  it('refuses an unknown relation, field or operator with a 400', async () => {
    for (const query of ['publisher.name=x', 'author.nickname=x', 'author.country[contains]=', 'tags.name[foo]=x']) {
      const r = await call('GET', `/books?${query}`);
      expect(r.status, query).toBe(400);
    }
    // a timestamp is no filter through a relation: the message says what is
    const r = await call('GET', '/books?author.createdAt=2020-01-01T00:00:00Z');
    expect(r.body).toMatchObject({
      errors: [
        { path: '/author.createdAt', message: expect.stringMatching(/timestamps are not filters through relations/) },
      ],
    });
  });
});
