// The scripted flow with a client made by openapi-typescript + openapi-fetch, default options, from the served document.
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type PostStatus = components['schemas']['PostStatus'];

const [url, bearer] = process.argv.slice(2) as [string, string];
const api = createClient<paths>({ baseUrl: url, headers: { authorization: `Bearer ${bearer}` } });

const user = await api.POST('/users', { body: { email: 'fetch@example.com', name: 'Fetch' } });
if (user.data === undefined) throw new Error(`no user: ${user.response.status}`);
const taken = await api.POST('/users', { body: { email: 'fetch@example.com' } });

const ids: string[] = [];
for (const title of ['alpha', 'beta', 'gamma']) {
  const post = await api.POST('/posts', { body: { title, authorId: user.data.id } });
  if (post.data === undefined) throw new Error(`no post: ${post.response.status}`);
  ids.push(post.data.id);
}
// each field's filters are one deepObject parameter: authorId[eq]=…&status[in]=draft,published
const filter = {
  authorId: { eq: user.data.id },
  status: { in: (['draft', 'published'] satisfies PostStatus[]).join(',') },
  sort: 'title',
};
const first = await api.GET('/posts', { params: { query: { ...filter, limit: 2 } } });
const cursor = first.data?.nextCursor ?? undefined;
const second = await api.GET('/posts', { params: { query: { ...filter, limit: 2, cursor } } });

const id = ids[0] ?? '';
const read = await api.GET('/posts/{id}', { params: { path: { id } } });
const etag = read.response.headers.get('etag') ?? '';
const changed = await api.PATCH('/posts/{id}', {
  params: { path: { id }, header: { 'If-Match': etag } },
  body: { views: 5 },
});
const stale = await api.PATCH('/posts/{id}', {
  params: { path: { id }, header: { 'If-Match': etag } },
  body: { views: 6 },
});
const published = await api.POST('/posts/{id}/publish', { params: { path: { id } } });
const status: PostStatus | undefined = published.data?.status;
const missing = await api.GET('/posts/{id}', { params: { path: { id: '01900000-0000-7000-8000-000000000000' } } });
// a relation embedded with ?include=, typed from the document (User | null)
const embedded = await api.GET('/posts/{id}', { params: { path: { id }, query: { include: ['author'] } } });
const author: string | undefined = embedded.data?.author?.id;

console.log(
  JSON.stringify({
    pages: [first.data?.items.map((p) => p.title), second.data?.items.map((p) => p.title), second.data?.nextCursor],
    patched: [changed.response.status, changed.data?.views],
    stale: [stale.response.status, stale.error?.title],
    published: [published.response.status, status],
    missing: [missing.response.status, missing.error?.title],
    taken: [taken.response.status, taken.error?.title],
    embedded: [embedded.response.status, author === user.data.id],
  }),
);
