// The hand-written baseline on PostgreSQL: server.mjs ported to `pg`, as a careful person writes it. The same routes,
// schemas, status codes and headers; a pg.Pool of DATABASE_POOL_SIZE connections (10 unless set: the generated
// server's default), each statement a named query config, so that every connection prepares it once. It serves the
// database the generated server migrated (DATABASE_URL).
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { fastifyOptions, protect } from './protections.mjs';
import { input, page, params, post } from './schemas.mjs';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE || 10),
  connectionTimeoutMillis: 10_000,
});
// an idle connection that fails is dropped from the pool; the next request gets a fresh one
pool.on('error', () => undefined);

const columns = 'id, title, body, status, views, rating, featured, created_at, updated_at, version';
const statement = (name, text) => async (values) => (await pool.query({ name, text, values })).rows;
const prepare = (table) => ({
  get: statement(`${table}_get`, `SELECT ${columns} FROM ${table} WHERE id = $1`),
  first: statement(`${table}_first`, `SELECT ${columns} FROM ${table} ORDER BY id LIMIT $1`),
  after: statement(`${table}_after`, `SELECT ${columns} FROM ${table} WHERE id > $1 ORDER BY id LIMIT $2`),
  insert: statement(
    `${table}_insert`,
    `INSERT INTO ${table} (id, title, body, status, views, rating, featured, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${columns}`,
  ),
  update: statement(
    `${table}_update`,
    `UPDATE ${table} SET title = coalesce($1, title), body = CASE WHEN $2 THEN $3 ELSE body END, views = coalesce($4, views), updated_at = $5, version = version + 1 WHERE id = $6 RETURNING ${columns}`,
  ),
});
const posts = prepare('posts');
const articles = prepare('articles');

// pg gives BIGINT as a string and TIMESTAMPTZ as a Date
const toPost = (row) => ({
  id: row.id,
  title: row.title,
  body: row.body,
  status: row.status,
  views: Number(row.views),
  rating: row.rating,
  featured: row.featured,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

// PROTECTIONS=1 adds the generated server's rate limit, request log and timeouts (protections.mjs)
const app = Fastify(fastifyOptions);
await protect(app);
const secret = new TextEncoder().encode(process.env.JWT_SECRET);

function item(store) {
  return async (request, reply) => {
    const [row] = await store.get([request.params.id]);
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
        ? await posts.first([limit + 1])
        : await posts.after([JSON.parse(Buffer.from(cursor, 'base64url').toString())[0], limit + 1]);
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
    const [row] = await posts.insert([
      uuidv7(),
      b.title,
      b.body ?? null,
      b.status ?? 'draft',
      b.views ?? 0,
      b.rating ?? null,
      b.featured ?? false,
      now,
      now,
    ]);
    return reply.code(201).header('location', `/posts/${row.id}`).send(toPost(row));
  },
);
app.patch('/posts/:id', { schema: { params, body: input, response: { 200: post } } }, async (request, reply) => {
  const b = request.body;
  const [row] = await posts.update([
    b.title ?? null,
    b.body !== undefined,
    b.body ?? null,
    b.views ?? null,
    new Date().toISOString(),
    request.params.id,
  ]);
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
