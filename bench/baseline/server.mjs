// The hand-written baseline: what a careful person writes for the same API without a generator.
// Fastify 5, JSON Schemas for validation and serialisation, better-sqlite3 with statements prepared once,
// jose for the bearer token of the guarded resource. It serves the database the generated server migrated.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import { v7 as uuidv7 } from 'uuid';
import { fastifyOptions, protect } from './protections.mjs';
import { input, page, params, post } from './schemas.mjs';

const db = new Database(process.env.DATABASE_FILE);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');

const columns = 'id, title, body, status, views, rating, featured, created_at, updated_at, version';
const prepare = (table) => ({
  get: db.prepare(`SELECT ${columns} FROM ${table} WHERE id = ?`),
  first: db.prepare(`SELECT ${columns} FROM ${table} ORDER BY id LIMIT ?`),
  after: db.prepare(`SELECT ${columns} FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`),
  insert: db.prepare(
    `INSERT INTO ${table} (id, title, body, status, views, rating, featured, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${columns}`,
  ),
  update: db.prepare(
    `UPDATE ${table} SET title = coalesce(?, title), body = CASE WHEN ? THEN ? ELSE body END, views = coalesce(?, views), updated_at = ?, version = version + 1 WHERE id = ? RETURNING ${columns}`,
  ),
});
const posts = prepare('posts');
const articles = prepare('articles');

const toPost = (row) => ({
  id: row.id,
  title: row.title,
  body: row.body,
  status: row.status,
  views: row.views,
  rating: row.rating,
  featured: row.featured === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

// PROTECTIONS=1 adds the generated server's rate limit, request log and timeouts (protections.mjs)
const app = Fastify(fastifyOptions);
await protect(app);
const secret = new TextEncoder().encode(process.env.JWT_SECRET);

function item(store) {
  return async (request, reply) => {
    const row = store.get.get(request.params.id);
    if (row === undefined)
      return reply.code(404).type('application/problem+json').send({ title: 'Not Found', status: 404 });
    return reply.header('etag', `"${row.version}"`).send(toPost(row));
  };
}

app.get('/posts/:id', { schema: { params, response: { 200: post } } }, item(posts));
app.get(
  '/posts',
  {
    schema: {
      querystring: {
        type: 'object',
        properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, cursor: { type: 'string' } },
      },
      response: { 200: page },
    },
  },
  async (request) => {
    const { limit, cursor } = request.query;
    const rows =
      cursor === undefined
        ? posts.first.all(limit + 1)
        : posts.after.all(JSON.parse(Buffer.from(cursor, 'base64url').toString())[0], limit + 1);
    const items = rows.slice(0, limit).map(toPost);
    const next = rows.length > limit ? Buffer.from(JSON.stringify([items.at(-1).id])).toString('base64url') : null;
    return { items, nextCursor: next };
  },
);
app.post(
  '/posts',
  { schema: { body: { ...input, required: ['title'] }, response: { 201: post } } },
  async (request, reply) => {
    const b = request.body;
    const now = new Date().toISOString();
    // `all`, not `get`: a write stepped to its end, or SQLite never runs its automatic WAL checkpoint and the WAL grows
    // without bound (the generated server does the same: runtime/src/db/sqlite.ts)
    const [row] = posts.insert.all(
      uuidv7(),
      b.title,
      b.body ?? null,
      b.status ?? 'draft',
      b.views ?? 0,
      b.rating ?? null,
      b.featured ? 1 : 0,
      now,
      now,
    );
    return reply.code(201).header('location', `/posts/${row.id}`).send(toPost(row));
  },
);
app.patch('/posts/:id', { schema: { params, body: input, response: { 200: post } } }, async (request, reply) => {
  const b = request.body;
  const [row] = posts.update.all(
    b.title ?? null,
    b.body !== undefined ? 1 : 0,
    b.body ?? null,
    b.views ?? null,
    new Date().toISOString(),
    request.params.id,
  );
  if (row === undefined) return reply.code(404).send({ title: 'Not Found', status: 404 });
  return toPost(row);
});
app.get(
  '/articles/:id',
  {
    schema: { params, response: { 200: post } },
    onRequest: async (request, reply) => {
      const token = request.headers.authorization?.slice(7);
      try {
        await jwtVerify(token ?? '', secret, { algorithms: ['HS256'] });
      } catch {
        return reply.code(401).send({ title: 'Unauthorized', status: 401 });
      }
    },
  },
  item(articles),
);

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });

// stopped as the generated server stops: requests finished, then the database closed (which checkpoints its WAL;
// killed without it, the WAL grows over the rounds and slows every later read)
process.once('SIGTERM', () => {
  app.close().then(() => {
    db.close();
    process.exit(0);
  });
});
