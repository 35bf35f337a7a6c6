// The scripted flow with orval's fetch client, configured with nothing but input, output and the server's address.
import { createPost, createUser, getPost, listPostsOfUser, patchPost, publishPost, type PostStatus } from './client.js';

const [bearer] = process.argv.slice(2) as [string];
const auth = { headers: { authorization: `Bearer ${bearer}` } };
const withIfMatch = (etag: string) => ({ headers: { ...auth.headers, 'if-match': etag } });

const user = await createUser({ email: 'orval@example.com', name: 'Orval' }, auth);
if (user.status !== 201) throw new Error(`no user: ${user.status}`);
const taken = await createUser({ email: 'orval@example.com' }, auth);

const ids: string[] = [];
for (const title of ['alpha', 'beta', 'gamma']) {
  const post = await createPost({ title, authorId: user.data.id }, auth);
  if (post.status !== 201) throw new Error(`no post: ${post.status}`);
  ids.push(post.data.id);
}
// the user's posts by their nested listing: orval's fetch client sends a deepObject filter as `[object Object]`
const first = await listPostsOfUser(user.data.id, { sort: 'title', limit: 2 }, auth);
const cursor = first.status === 200 && first.data.nextCursor !== null ? first.data.nextCursor : undefined;
const second = await listPostsOfUser(user.data.id, { sort: 'title', limit: 2, cursor }, auth);

const id = ids[0] ?? '';
const read = await getPost(id, undefined, auth);
const etag = read.headers.get('etag') ?? '';
const changed = await patchPost(id, { views: 5 }, withIfMatch(etag));
const stale = await patchPost(id, { views: 6 }, withIfMatch(etag));
const published = await publishPost(id, auth);
const status: PostStatus | undefined = published.status === 200 ? published.data.status : undefined;
const missing = await getPost('01900000-0000-7000-8000-000000000000', undefined, auth);

const titles = (page: typeof first) => (page.status === 200 ? page.data.items.map((p) => p.title) : page.status);
console.log(
  JSON.stringify({
    pages: [titles(first), titles(second), second.status === 200 ? second.data.nextCursor : second.status],
    patched: [changed.status, changed.status === 200 ? changed.data.views : undefined],
    stale: [stale.status, stale.status === 412 ? stale.data.title : undefined],
    published: [published.status, status],
    missing: [missing.status, missing.status === 404 ? missing.data.title : undefined],
    taken: [taken.status, taken.status === 409 ? taken.data.title : undefined],
  }),
);
