import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { isSecretName, MAX_LOGGED_URL, redactQuery, REDACTED, withRedaction } from '../../runtime/src/http/redact.js';
import { RequestLog, requestLogger } from '../../runtime/src/http/request-log.js';

const PLANTED = 'planted-9f3e1c';

describe('the query parameters named like secrets', () => {
  it.each([
    'token',
    'access_token',
    'ACCESS_TOKEN',
    'refresh-token',
    'id_token',
    'key',
    'api_key',
    'apiKey',
    'x-api-key',
    'secret',
    'client_secret',
    'password',
    'new_password',
    'passwd',
    'pass',
    'user_pass',
    'passphrase',
    'X-Amz-Signature',
    'sig',
    'auth',
    'jwt',
    'sessionid',
    'filter[key]',
    'access%5Ftoken',
    'tokens',
  ])('%s is one', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['limit', 'cursor', 'sort', 'fields', 'include', 'keyword', 'tokenized', 'author', 'title', 'q', '%E0'])(
    '%s is not',
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );
});

describe('redactQuery', () => {
  it.each([
    ['/posts', '/posts'],
    ['/posts?limit=2', '/posts?limit=2'],
    [`/posts?access_token=${PLANTED}`, `/posts?access_token=${REDACTED}`],
    [`/posts?limit=2&api_key=${PLANTED}&sort=-title`, `/posts?limit=2&api_key=${REDACTED}&sort=-title`],
    [`/posts?Token=${PLANTED}&token=${PLANTED}`, `/posts?Token=${REDACTED}&token=${REDACTED}`],
    // an empty value hides nothing; a parameter without `=` has no value
    ['/posts?token=&password', '/posts?token=&password'],
    [`/posts?cursor=abc%3D%3D&secret=a%26b`, `/posts?cursor=abc%3D%3D&secret=${REDACTED}`],
    // in text around a URL: a message, a stack
    [`Route GET:/x?key=${PLANTED} not found`, `Route GET:/x?key=${REDACTED} not found`],
    [`"url":"/x?password=${PLANTED}"`, `"url":"/x?password=${REDACTED}"`],
  ])('%s is logged as %s', (text, logged) => {
    expect(redactQuery(text)).toBe(logged);
  });
});

/** A server logging through the redaction at `trace`, as the generated one does, into `output`. */
async function server() {
  let output = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      output += chunk.toString();
      done();
    },
  });
  const app = Fastify({
    logger: withRedaction({ level: 'trace', stream }),
    logController: new RequestLog(),
    childLoggerFactory: requestLogger,
  });
  app.get('/careless', async (request, reply) => {
    // what code that logs too much logs
    request.log.info({ headers: request.headers }, 'headers');
    request.log.trace({ req: request }, 'request');
    request.log.debug('the url: %s', request.url);
    request.log.warn(`the url: ${request.url}`);
    request.log.error(new Error(`failed to fetch https://api.example/x?api_key=${PLANTED}`));
    reply.header('set-cookie', `session=${PLANTED}`);
    request.log.info({ response: { headers: reply.getHeaders() } }, 'answer');
    return { ok: true };
  });
  await app.ready();
  return { app, output: () => output };
}

describe('a logger with the redaction', () => {
  it('writes no secret of a header, a cookie, the query or an error, at any level', async () => {
    const { app, output } = await server();
    const r = await app.inject({
      url: `/careless?limit=2&access_token=${PLANTED}`,
      headers: {
        authorization: `Bearer ${PLANTED}`,
        'proxy-authorization': `Basic ${PLANTED}`,
        cookie: `session=${PLANTED}`,
        'x-api-key': PLANTED,
        'x-kept': 'visible',
      },
    });
    expect(r.statusCode).toBe(200);
    await app.close();
    const text = output();
    expect(text).not.toContain(PLANTED);
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const byMessage = (msg: string) => lines.find((line) => line.msg === msg);
    expect(byMessage('headers')?.headers).toMatchObject({
      authorization: REDACTED,
      'proxy-authorization': REDACTED,
      cookie: REDACTED,
      'x-api-key': REDACTED,
      'x-kept': 'visible',
    });
    expect(byMessage('request')?.req).toMatchObject({ url: `/careless?limit=2&access_token=${REDACTED}` });
    expect(byMessage(`the url: /careless?limit=2&access_token=${REDACTED}`)).toMatchObject({ level: 20 });
    expect(lines.filter((line) => line.msg === `the url: /careless?limit=2&access_token=${REDACTED}`)).toHaveLength(2);
    expect(byMessage(`failed to fetch https://api.example/x?api_key=${REDACTED}`)).toMatchObject({
      err: { message: `failed to fetch https://api.example/x?api_key=${REDACTED}` },
    });
    expect(byMessage('answer')).toMatchObject({ response: { headers: { 'set-cookie': REDACTED } } });
    expect(byMessage('incoming request')).toMatchObject({ url: `/careless?limit=2&access_token=${REDACTED}` });
    expect(byMessage('request completed')).toMatchObject({ url: `/careless?limit=2&access_token=${REDACTED}` });
  });

  it('cuts a long URL, after its secrets are redacted', async () => {
    const { app, output } = await server();
    const long = `/careless?access_token=${PLANTED}&limit=2&pad=${'x'.repeat(5000)}`;
    expect((await app.inject({ url: long })).statusCode).toBe(200);
    await app.close();
    const lines = output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; url?: string; req?: { url?: string } });
    const urls = lines.flatMap((line) => [line.url, line.req?.url]).filter((u) => u !== undefined);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    const redacted = `/careless?access_token=${REDACTED}&limit=2&pad=${'x'.repeat(5000)}`;
    for (const logged of urls)
      expect(logged).toBe(`${redacted.slice(0, MAX_LOGGED_URL)}… (${redacted.length} characters)`);
  });

  it('keeps the serializers and redact paths given, and leaves no logger as it is', () => {
    const mine = (value: unknown) => value;
    const options = withRedaction({ level: 'info', serializers: { mine }, redact: ['body.card'] }) as {
      serializers: Record<string, unknown>;
      redact: { paths: string[] };
    };
    expect(options.serializers.mine).toBe(mine);
    expect(Object.keys(options.serializers)).toEqual(expect.arrayContaining(['url', 'req', 'err', 'mine']));
    expect(options.redact.paths).toEqual(expect.arrayContaining(['body.card', 'headers["authorization"]']));
    expect(withRedaction(false)).toBe(false);
    expect(withRedaction(undefined)).toBeUndefined();
  });
});
