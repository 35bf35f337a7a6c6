import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installContentTypes } from '../../runtime/src/http/content-types.js';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';
import { valueAt } from '../../runtime/src/http/validation.js';
import { installValidators, SPELLING } from '../../runtime/src/http/validator.js';

/** The words of a 400 for a bad value, through the generated server's validators and error handler. */
let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify();
  installValidators(app);
  installContentTypes(app);
  installErrorHandlers(app);
  // a json field that is not nullable has every JSON type but null (src/contract/json-schemas.ts, NOT_NULL_JSON)
  const body = {
    type: 'object',
    properties: { settings: { type: ['object', 'array', 'string', 'number', 'boolean'] } },
  };
  app.post('/items', { schema: { body } }, async () => ({ ok: true }));
  const typed = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      count: { type: 'integer' },
      weight: { type: 'number' },
      done: { type: 'boolean' },
      tags: { type: 'array' },
      meta: { type: 'object' },
      note: { type: ['string', 'null'] },
      size: { type: 'string', enum: ['small', 'large'] },
      // a nullable enum, as src/contract/json-schemas.ts writes it
      shade: { type: ['string', 'null'], enum: ['light', 'dark', null] },
    },
  };
  app.post('/typed', { schema: { body: typed } }, async () => ({ ok: true }));
  const querystring = {
    type: 'object',
    properties: {
      weight: { type: 'number' },
      size: { type: 'integer' },
      'size[in]': { type: 'array', items: { type: 'integer' } },
    },
    additionalProperties: false,
  };
  app.get('/items', { schema: { querystring } }, async (request) => request.query);
  app.delete('/items/:id', async (request) => ({ body: request.body ?? 'none' }));
  await app.ready();
});

afterAll(async () => {
  await app.close();
});

const errorsOf = (payload: string): unknown => (JSON.parse(payload) as { errors?: unknown }).errors;

describe('a json field that is not nullable', () => {
  it('refuses null saying so, not by listing every other type', async () => {
    const r = await app.inject({ method: 'POST', url: '/items', payload: { settings: null } });
    expect(r.statusCode).toBe(400);
    expect(errorsOf(r.payload)).toEqual([{ path: '/settings', message: 'must not be null' }]);
    for (const settings of [{}, [], '', 0, false]) {
      const ok = await app.inject({ method: 'POST', url: '/items', payload: { settings } });
      expect(ok.statusCode, JSON.stringify(settings)).toBe(200);
    }
  });
});

describe('a value an enum does not have', () => {
  it.each([
    [{ size: 'medium' }, '/size', 'must be one of: "small", "large"'],
    [{ shade: 'grey' }, '/shade', 'must be one of: "light", "dark"; or null'],
    // one error a field, the enum's (not also its type's)
    [{ size: null }, '/size', 'must be one of: "small", "large", not null'],
    [{ size: 3 }, '/size', 'must be one of: "small", "large"'],
    [{ shade: 5 }, '/shade', 'must be one of: "light", "dark"; or null'],
  ])('%j: %s %s', async (payload, path, message) => {
    const r = await app.inject({ method: 'POST', url: '/typed', payload });
    expect(r.statusCode).toBe(400);
    expect(errorsOf(r.payload)).toEqual([{ path, message }]);
  });

  it('takes null where the enum is nullable', async () => {
    expect((await app.inject({ method: 'POST', url: '/typed', payload: { shade: null } })).statusCode).toBe(200);
  });
});

describe('a value of the wrong type', () => {
  it.each([
    [{ title: 1 }, '/title', 'must be a string'],
    [{ count: 'x' }, '/count', 'must be a whole number'],
    [{ weight: true }, '/weight', 'must be a number'],
    [{ done: 'yes' }, '/done', 'must be true or false'],
    [{ tags: {} }, '/tags', 'must be an array'],
    [{ meta: [] }, '/meta', 'must be an object'],
    [{ note: 3 }, '/note', 'must be a string or null'],
    // a null sent where the field takes none (a PATCH clearing a required field) is called null
    [{ count: null }, '/count', 'must be a whole number, not null'],
    [{ title: null }, '/title', 'must be a string, not null'],
  ])('%j: says the type in words', async (payload, path, message) => {
    const r = await app.inject({ method: 'POST', url: '/typed', payload });
    expect(r.statusCode).toBe(400);
    expect(errorsOf(r.payload)).toEqual([{ path, message }]);
  });
});

describe('a number in the query', () => {
  it.each([
    ['weight=1e-7', 1e-7],
    ['weight=-0.5', -0.5],
    ['weight=42', 42],
    ['size=-7', -7],
  ])('takes %s as JSON writes it', async (query, want) => {
    const r = await app.inject({ method: 'GET', url: `/items?${query}` });
    expect(r.statusCode).toBe(200);
    expect(Object.values(JSON.parse(r.payload) as object)).toEqual([want]);
  });

  it.each([
    ['weight=0x10', 'weight', SPELLING.number],
    ['weight=.5', 'weight', SPELLING.number],
    ['weight=1e', 'weight', SPELLING.number],
    ['size=4.0', 'size', SPELLING.integer],
    ['size=1e3', 'size', SPELLING.integer],
  ])('refuses %s, saying how a number is written', async (query, name, message) => {
    const r = await app.inject({ method: 'GET', url: `/items?${query}` });
    expect(r.statusCode).toBe(400);
    expect(errorsOf(r.payload)).toEqual([{ path: `/${name}`, message }]);
  });

  it('refuses a plain number given twice once, whatever its values', async () => {
    const r = await app.inject({ method: 'GET', url: '/items?size=1&size=x' });
    expect(r.statusCode).toBe(400);
    expect(errorsOf(r.payload)).toEqual([{ path: '/size', message: 'is given more than once: give it once' }]);
  });

  it('names the item of an in list that is not a number, by its place and its text', async () => {
    const r = await app.inject({ method: 'GET', url: '/items?size[in]=1,,2' });
    expect(r.statusCode).toBe(400);
    expect(errorsOf(r.payload)).toEqual([{ path: '/size[in]/1', message: `${SPELLING.integer}, not ""` }]);
  });

  it('says of an unknown field[op] that the field or its operator is unknown, and of a plain name only that', async () => {
    const op = await app.inject({ method: 'GET', url: '/items?weight[contains]=1' });
    expect(op.statusCode).toBe(400);
    expect(errorsOf(op.payload)).toEqual([
      {
        path: '/weight[contains]',
        message: expect.stringMatching(
          /^is not a known parameter: this listing filters no such field, or the field takes no such operator \(contains is for text;/,
        ),
      },
    ]);
    const plain = await app.inject({ method: 'GET', url: '/items?colour=red' });
    expect(errorsOf(plain.payload)).toEqual([{ path: '/colour', message: 'is not a known parameter' }]);
  });

  it('words a number and a whole number as the patterns take them', () => {
    expect(SPELLING.number).toMatch(/1e-7/);
    expect(SPELLING.integer).toMatch(/whole number/);
  });
});

describe('an empty body said to be JSON', () => {
  const send = (method: 'POST' | 'DELETE', url: string) =>
    app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: '' });

  it('is none on a route that takes no body, such as a DELETE (found by a newcomer)', async () => {
    const response = await send('DELETE', '/items/1');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ body: 'none' });
  });

  it('is a 400 that says so where the route takes a body', async () => {
    const response = await send('POST', '/items');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ detail: 'the body is empty: send a JSON value' });
  });
});

describe('valueAt', () => {
  it('follows a JSON Pointer through own members only, its ~1 and ~0 escapes read', () => {
    const data = { a: { 'b/c': [1, null], 'd~e': 'x' } };
    expect(valueAt(data, '/a/b~1c/1')).toBeNull();
    expect(valueAt(data, '/a/b~1c/0')).toBe(1);
    expect(valueAt(data, '/a/d~0e')).toBe('x');
    expect(valueAt(data, '')).toBe(data);
    expect(valueAt(data, '/a/missing')).toBeUndefined();
    expect(valueAt(data, '/constructor')).toBeUndefined();
    expect(valueAt(data, '/a/b~1c/0/x')).toBeUndefined();
  });
});
