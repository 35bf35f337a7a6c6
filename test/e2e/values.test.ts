import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, http, ROOT, serveGenerated, type RunningServer } from '../helpers/project.js';
import { databaseUrl } from '../helpers/database.js';
import { SECRET, token } from '../helpers/tokens.js';

/** Values at the edges of the contract (issue #11): each case here was accepted, altered or slow before. */
let server: RunningServer;
let items: string;

beforeAll(async () => {
  ({ server } = await serveGenerated(`${ROOT}/test/e2e/fixtures/values.yaml`, 'e2e-values', {
    DATABASE_URL: await databaseUrl('values'),
    JWT_SECRET: SECRET,
  }));
  items = `${server.url}/items`;
});

afterAll(async () => {
  await server?.stop();
});

type Problem = { status: number; detail: string; errors?: { path: string; message: string }[] };
const problemOf = (r: { status: number; headers: Headers; body: unknown }): Problem => {
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect((r.body as Problem).status).toBe(r.status);
  return r.body as Problem;
};

describe('patterns', () => {
  it('match the whole value (anchored)', async () => {
    expect((await http('POST', items, { handle: 'ada_99' })).status).toBe(201);
    const r = await http('POST', items, { handle: '<img src=x onerror=alert(1)> abc' });
    expect(r.status).toBe(400);
    expect(problemOf(r).errors?.[0]?.path).toBe('/handle');
  });

  it('run in linear time: a catastrophic-backtracking pattern answers at once and blocks nobody', async () => {
    const started = Date.now();
    const [r, health] = await Promise.all([
      http('POST', items, { slow: `${'a'.repeat(5000)}!` }),
      http('GET', `${server.url}/healthz`),
    ]);
    expect(r.status).toBe(400);
    expect(health.status).toBe(200);
    // a backtracking engine takes minutes on 31 characters; this bound only catches that
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await http('POST', items, { slow: 'aaaa' })).status).toBe(201);
  });

  it('a pattern RE2 cannot run is a definition error, and validate never spins on a default', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const folder = mkdtempSync(join(tmpdir(), 'values-'));
    const lookaround = join(folder, 'lookaround.yaml');
    writeFileSync(
      lookaround,
      'name: x\nversion: 1.0.0\nresources:\n  things:\n    fields:\n      a: { type: string, pattern: "(?=a)a" }\n',
    );
    const refused = await cli('validate', lookaround);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/lookaround\.yaml:6:\d+ .*RE2/);
    const redos = join(folder, 'redos.yaml');
    writeFileSync(
      redos,
      `name: x\nversion: 1.0.0\nresources:\n  things:\n    fields:\n      a: { type: string, pattern: "^(a+)+$", default: "${'a'.repeat(40)}!" }\n`,
    );
    const started = Date.now();
    const checked = await cli('validate', redos);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(checked.code).toBe(1);
    expect(checked.err).toContain('does not match pattern');
  });
});

describe('URLs', () => {
  it.each(['javascript:alert(1)', 'vbscript:msgbox(1)', 'file:///etc/passwd', 'data:text/html,x', 'example.com'])(
    'refuses %s',
    async (site) => {
      const r = await http('POST', items, { site });
      expect(r.status).toBe(400);
      expect(problemOf(r).errors?.[0]).toEqual({ path: '/site', message: 'must be an absolute http or https URL' });
    },
  );

  it('takes http and https', async () => {
    for (const site of ['http://example.com/a?b=c', 'HTTPS://example.com'])
      expect((await http('POST', items, { site })).status).toBe(201);
  });
});

describe('date-times', () => {
  it.each([
    '9999-12-31T23:59:59-23:59', // year 10000 in UTC
    '0001-01-01T00:00:00+01:00', // year 0 in UTC
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:59:60Z',
    '2026-01-01T10:00:00+24:00',
    '2026-01-01T10:00Z',
  ])('refuses %s', async (at) => {
    const r = await http('POST', items, { at });
    expect(r.status).toBe(400);
    expect(problemOf(r).errors?.[0]?.path).toBe('/at');
  });

  it('stores what it takes in UTC, RFC 3339, and reads it back in the same form', async () => {
    const created = await http('POST', items, { at: '9999-12-31T10:00:00-05:00', day: '2024-02-29' });
    expect(created.status).toBe(201);
    const record = created.body as { id: number; at: string };
    expect(record.at).toBe('9999-12-31T15:00:00.000Z');
    expect((await http('GET', `${items}/${record.id}`)).status).toBe(200);
    expect((await http('POST', items, { day: '2026-02-30' })).status).toBe(400);
  });

  it('filters refuse impossible instants too', async () => {
    expect((await http('GET', `${items}?at[gte]=2026-02-29T00:00:00Z`)).status).toBe(400);
    expect((await http('GET', `${items}?at[gte]=2026-02-28T00:00:00Z`)).status).toBe(200);
  });
});

describe('integer ids and numbers have one spelling', () => {
  let id: number;
  beforeAll(async () => {
    id = ((await http('POST', items, { size: 474 })).body as { id: number }).id;
  });

  it('reads the record by its id only', async () => {
    expect((await http('GET', `${items}/${id}`)).status).toBe(200);
    for (const alias of [`0x${id.toString(16)}`, `${id}.0`, `${id}e0`, `0${id}`, `%20${id}`, `+${id}`]) {
      const r = await http('GET', `${items}/${alias}`);
      expect(r.status, alias).toBe(404);
      problemOf(r);
    }
  });

  it('filters take plain numbers only, and a parameter once', async () => {
    expect((await http('GET', `${items}?size=474`)).status).toBe(200);
    for (const alias of ['0x1da', '474.0', '474e0', '0474', '%20474']) {
      const refused = await http('GET', `${items}?size=${alias}`);
      expect(refused.status, alias).toBe(400);
      expect(problemOf(refused).errors, alias).toEqual([
        { path: '/size', message: 'must be a whole number written plainly (like 42 or -7)' },
      ]);
      expect((await http('GET', `${items}?size[in]=1,${alias}`)).status, `in ${alias}`).toBe(400);
    }
    const repeated = await http('GET', `${items}?limit=1&limit=2`);
    expect(repeated.status).toBe(400);
    expect(problemOf(repeated).errors).toEqual([{ path: '/limit', message: 'is given more than once: give it once' }]);
  });
});

describe('bodies are taken as sent or refused, never altered', () => {
  it('refuses a lone surrogate instead of storing U+FFFD, keeps a pair', async () => {
    const lone = await http('POST', items, '{"handle":"abc","meta":{"k":"\\ud800"}}');
    expect(lone.status).toBe(400);
    expect(problemOf(lone).detail).toContain('lone UTF-16 surrogate');
    const pair = await http('POST', items, '{"meta":{"k":"\\ud83d\\ude00"}}');
    expect(pair.status).toBe(201);
    expect((pair.body as { meta: { k: string } }).meta.k).toBe('😀');
  });

  it('refuses bytes that are not UTF-8', async () => {
    const r = await fetch(items, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"handle":"ab'), Buffer.from([0xff]), Buffer.from('c"}')]),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as Problem).detail).toContain('UTF-8');
  });

  it('says why a __proto__ or constructor.prototype key is refused', async () => {
    for (const body of ['{"meta":{"__proto__":{"x":1}}}', '{"meta":{"constructor":{"prototype":{}}}}']) {
      const r = await http('POST', items, body);
      expect(r.status).toBe(400);
      expect(problemOf(r).detail).toMatch(/key named .* is refused/);
    }
    expect((await http('POST', items, '{"meta":{"constructor":"fine"}}')).status).toBe(201);
  });

  it('takes application/merge-patch+json on PATCH only, and a 415 says what to send', async () => {
    const created = (await http('POST', items, { size: 1 })).body as { id: number };
    const merge = { 'content-type': 'application/merge-patch+json' };
    expect((await http('PATCH', `${items}/${created.id}`, { size: 2 }, merge)).status).toBe(200);
    const post = await http('POST', items, { size: 1 }, merge);
    expect(post.status).toBe(415);
    expect(problemOf(post).detail).toContain('application/json');
    const text = await http('POST', items, 'size=1', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(problemOf(text).detail).toBe(
      'send the body as application/json (PATCH also takes application/merge-patch+json)',
    );
  });

  it('enum errors list the allowed values', async () => {
    const r = await http('POST', items, { kind: 'medium' });
    expect(r.status).toBe(400);
    expect(problemOf(r).errors).toEqual([{ path: '/kind', message: 'must be one of: "small", "large"' }]);
  });
});

describe('JSON Merge Patch of a json field', () => {
  it('merges as RFC 7396 says: members replaced, null removes, objects merged deeply, others replace', async () => {
    const created = (await http('POST', items, { meta: { a: 1, b: { c: 2, d: 3 }, e: [1] } })).body as { id: number };
    const r = await http('PATCH', `${items}/${created.id}`, { meta: { a: null, b: { c: 9 }, e: { x: 1 }, f: 'new' } });
    expect(r.status).toBe(200);
    expect((r.body as { meta: unknown }).meta).toEqual({ b: { c: 9, d: 3 }, e: { x: 1 }, f: 'new' });
    const replaced = await http('PATCH', `${items}/${created.id}`, { meta: [1, 2] });
    expect((replaced.body as { meta: unknown }).meta).toEqual([1, 2]);
  });

  it('merges 60,000 keys in linear time, without holding other requests', async () => {
    const created = (await http('POST', items, { meta: { keep: true } })).body as { id: number };
    const meta = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1]));
    const started = Date.now();
    const patching = http('PATCH', `${items}/${created.id}`, { meta });
    // a request sent meanwhile is answered without waiting for the merge to end (quadratic merges took 14-37 s)
    await new Promise((wait) => setTimeout(wait, 20));
    const health = await http('GET', `${server.url}/healthz`);
    const r = await patching;
    expect(health.status).toBe(200);
    expect(r.status).toBe(200);
    expect(Object.keys((r.body as { meta: object }).meta)).toHaveLength(60_001);
    // generous: a machine under load is slow, a quadratic merge is far slower
    expect(Date.now() - started).toBeLessThan(8000);
    const again = await http('PATCH', `${items}/${created.id}`, { meta });
    expect(again.status).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  it('is ignored without a valid token (anonymous keys would be shared by everyone behind one address)', async () => {
    const key = { 'idempotency-key': 'shared-by-an-address' };
    const first = await http('POST', items, { size: 7 }, key);
    const second = await http('POST', items, { size: 7 }, key);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect((second.body as { id: number }).id).not.toBe((first.body as { id: number }).id);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('is honoured for a caller with a valid token, on a public route too', async () => {
    const caller = { authorization: `Bearer ${await token('idem-1')}`, 'idempotency-key': 'mine' };
    const first = await http('POST', items, { size: 8 }, caller);
    const second = await http('POST', items, { size: 8 }, caller);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((second.body as { id: number }).id).toBe((first.body as { id: number }).id);
  });
});

describe('null for a json field (found by a newcomer renting bikes: a 500 from the NOT NULL column)', () => {
  it('is a 400 in a POST or PUT unless the field is nullable, and resets an optional one in a PATCH', async () => {
    for (const body of [{ settings: null }, { meta: null }]) {
      const r = await http('POST', items, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(problemOf(r).errors?.[0]).toEqual({ path: `/${Object.keys(body)[0]}`, message: 'must not be null' });
    }
    const created = await http('POST', items, { extra: null, settings: { theme: 'light' } });
    expect(created.status).toBe(201);
    const { id, extra } = created.body as { id: number; extra: unknown };
    expect(extra).toBeNull();
    expect((await http('PUT', `${items}/${id}`, { settings: null })).status).toBe(400);
    const reset = await http('PATCH', `${items}/${id}`, { settings: null, meta: null });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ settings: { theme: 'dark' }, meta: null });
  });
});

describe('found by a newcomer walking through a clinic', () => {
  it('refuses a number too large for a double in a json field instead of storing null', async () => {
    for (const body of ['{"meta":{"big":1e400}}', '{"meta":[1e400]}', `{"meta":${'9'.repeat(400)}}`]) {
      const r = await http('POST', items, body);
      expect(r.status, body).toBe(400);
      expect(problemOf(r).detail).toContain('too large');
    }
    const fine = await http('POST', items, '{"meta":{"small":1e-5,"e":"1e400 in a string"}}');
    expect(fine.status).toBe(201);
  });

  it('answers a body in another charset or compressed with a 415', async () => {
    const latin = await http('POST', items, { size: 1 }, { 'content-type': 'application/json; charset=latin1' });
    expect(latin.status).toBe(415);
    expect(problemOf(latin).detail).toContain('UTF-8');
    expect((await http('POST', items, { size: 1 }, { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(
      201,
    );
    const gzip = await http('POST', items, { size: 1 }, { 'content-encoding': 'gzip' });
    expect(gzip.status).toBe(415);
  });

  it('takes a repeat with the members of its body in another order as the same request', async () => {
    const caller = { authorization: `Bearer ${await token('idem-2')}`, 'idempotency-key': 'reordered' };
    const first = await http('POST', items, '{"size":9,"kind":"small"}', caller);
    const again = await http('POST', items, '{"kind":"small","size":9}', caller);
    expect(again.status).toBe(201);
    expect((again.body as { id: number }).id).toBe((first.body as { id: number }).id);
  });

  it('says which pattern a value breaks as the definition writes it, and how deep JSON may nest', async () => {
    const r = await http('POST', items, { handle: 'NO' });
    expect(problemOf(r).errors).toEqual([
      { path: '/handle', message: 'must match the pattern "[a-z0-9_]{3,16}", as a whole' },
    ]);
    let deep: unknown = 1;
    for (let i = 0; i < 40; i += 1) deep = [deep];
    const nested = await http('POST', items, { meta: deep });
    expect(problemOf(nested).errors).toEqual([
      { path: '/meta', message: 'nests arrays and objects deeper than 32 levels' },
    ]);
  });
});

describe('a resource without fields', () => {
  it('creates, patches and replaces with an empty body, and refuses any field', async () => {
    const markers = `${server.url}/markers`;
    const created = await http('POST', markers, {});
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect(Object.keys(created.body as object).sort()).toEqual(['createdAt', 'id', 'updatedAt']);
    expect((await http('PATCH', `${markers}/${id}`, {})).status).toBe(200);
    expect((await http('PUT', `${markers}/${id}`, {})).status).toBe(200);
    expect(problemOf(await http('POST', markers, { name: 'x' })).status).toBe(400);
  });
});
