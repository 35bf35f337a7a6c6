// The JSON Schemas both hand-written baselines validate and serialise with (server.mjs, server-pg.mjs): the API of
// bench/definition.yaml's posts, as a careful person writes it by hand.
export const post = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    body: { type: ['string', 'null'] },
    status: { type: 'string' },
    views: { type: 'integer' },
    rating: { type: ['number', 'null'] },
    featured: { type: 'boolean' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
};
export const page = {
  type: 'object',
  properties: { items: { type: 'array', items: post }, nextCursor: { type: ['string', 'null'] } },
};
export const params = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
export const input = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200 },
    body: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['draft', 'published'] },
    views: { type: 'integer', minimum: 0 },
    rating: { type: ['number', 'null'] },
    featured: { type: 'boolean' },
  },
  additionalProperties: false,
};
