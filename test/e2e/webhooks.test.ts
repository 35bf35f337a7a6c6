import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_WEBHOOK } from '../../runtime/src/webhooks/dispatcher.js';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, http, startServer, typecheckAndBuild, WORK, type RunningServer } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * Webhooks (SPEC §6) against a receiver of this test: Standard Webhooks signatures, retries with backoff then
 * `failed`, the delivery log and manual retry, delivery after a SIGKILL, a graceful stop that finishes its sends,
 * two instances that never send one delivery at once, a slow receiver that holds back no other subscription's
 * deliveries, and no loopback URL unless WEBHOOK_ALLOW_PRIVATE=true.
 */
const DEFINITION = `
name: alerts
version: 1.0.0
prefix: /api
events:
  webhooks: true
  retry: { attempts: 3, firstDelay: 200ms }
resources:
  orders:
    fields: { note: string }
    access: { list: authenticated, read: authenticated, create: authenticated, update: authenticated, delete: authenticated }
  products:
    fields: { name: string }
    access: { list: public, read: public, create: authenticated, update: authenticated, delete: authenticated }
`;

interface Received {
  at: number;
  path: string;
  id: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** How long `/sluggish` takes to answer: a receiver that must hold back no other subscription. */
const SLUGGISH_MS = 3000;

/** The receiver: records every request; `/fail-N` answers 500 to the first N attempts of each message. */
const received: Received[] = [];
const inFlight = new Map<string, number>();
let overlapped = 0;
/** requests under way at each path, and the most there ever were */
const underWay = new Map<string, number>();
const mostUnderWay = new Map<string, number>();
let closedUntil = false;
let receiver: Server;
let receiverUrl: string;

function answer(path: string, attempt: number): { status: number; delay: number } {
  const failing = /^\/fail-(\d+)$/.exec(path);
  if (failing) return { status: attempt <= Number(failing[1]) ? 500 : 204, delay: 0 };
  if (path === '/down') return { status: 503, delay: 0 };
  if (path === '/later') return { status: closedUntil ? 503 : 200, delay: 0 };
  if (path === '/slow') return { status: 200, delay: 100 };
  if (path === '/long') return { status: 200, delay: 1500 };
  if (path === '/sluggish') return { status: 200, delay: SLUGGISH_MS };
  return { status: 200, delay: 0 };
}

let dir: string;
let databaseUrlOf: string;
let one: RunningServer;
let two: RunningServer;
let admin: ReturnType<typeof as>;
let user: ReturnType<typeof as>;
const env = (): Record<string, string> => ({
  DATABASE_URL: databaseUrlOf,
  JWT_SECRET: SECRET,
  WEBHOOK_ALLOW_PRIVATE: 'true',
});

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const path = request.url ?? '/';
      received.push({ at: Date.now(), path, id, headers: request.headers, body });
      const key = `${path} ${id}`;
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      if ((inFlight.get(key) ?? 0) > 1) overlapped += 1;
      underWay.set(path, (underWay.get(path) ?? 0) + 1);
      mostUnderWay.set(path, Math.max(mostUnderWay.get(path) ?? 0, underWay.get(path) ?? 0));
      const attempt = received.filter((r) => r.path === path && r.id === id).length;
      const { status, delay } = answer(path, attempt);
      setTimeout(() => {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
        underWay.set(path, (underWay.get(path) ?? 1) - 1);
        response.writeHead(status).end();
      }, delay);
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;

  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'alerts.yaml');
  writeFileSync(file, DEFINITION);
  dir = await generateFresh(file, 'e2e-alerts');
  await typecheckAndBuild(dir);
  databaseUrlOf = await databaseUrl('alerts', 'sqlite:./data/alerts.db');
  one = await startServer(dir, env(), '/api/healthz');
  two = await startServer(dir, env(), '/api/healthz');
  admin = as(await token('root', { roles: ['admin'] }));
  user = as(await token('uma'));
});

afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await new Promise((closed) => receiver?.close(closed));
});

type Hook = { id: string; secret: string; url: string; types: string[] | null };
type Delivery = {
  id: number;
  type: string;
  event: Record<string, unknown>;
  status: string;
  attempts: number;
  lastStatus: number | null;
};

async function subscribe(path: string, types?: string[]): Promise<Hook> {
  const r = await admin('POST', `${one.url}/api/webhooks`, { url: receiverUrl + path, ...(types && { types }) });
  expect(r.status, r.text).toBe(201);
  return r.body as Hook;
}

async function order(note: string, server = one): Promise<string> {
  const r = await user('POST', `${server.url}/api/orders`, { note });
  expect(r.status, r.text).toBe(201);
  return String((r.body as { id: string }).id);
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

const deliveries = async (hook: Hook, server = one): Promise<Delivery[]> =>
  ((await admin('GET', `${server.url}/api/webhooks/${hook.id}/deliveries?limit=100`)).body as { items: Delivery[] })
    .items;

const settled = (hook: Hook, count: number, server = one, ms?: number) =>
  waitFor(
    `${count} settled deliveries`,
    async () => {
      const all = await deliveries(hook, server);
      return all.length >= count && all.every((d) => d.status !== 'pending') ? all : undefined;
    },
    ms,
  );

describe('subscriptions', () => {
  it('are the administrator’s: 401 without a token, 403 for anyone else', async () => {
    expect((await http('GET', `${one.url}/api/webhooks`)).status).toBe(401);
    expect((await user('GET', `${one.url}/api/webhooks`)).status).toBe(403);
    expect((await user('POST', `${one.url}/api/webhooks`, { url: 'https://example.com/h' })).status).toBe(403);
  });

  it('show the secret once, and refuse bad URLs and unknown types', async () => {
    const hook = await subscribe('/ok', ['orders.created']);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const read = await admin('GET', `${one.url}/api/webhooks/${hook.id}`);
    expect(read.body).toMatchObject({ id: hook.id, types: ['orders.created'], enabled: true });
    expect(read.text).not.toContain('whsec_');
    for (const body of [
      { url: 'ftp://example.com/x' },
      { url: 'not a url' },
      { url: receiverUrl, types: ['nope'] },
      { url: receiverUrl, types: [] },
      { url: receiverUrl.replace('http://', 'http://user:secret@') },
    ]) {
      const r = await admin('POST', `${one.url}/api/webhooks`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    // an entry is matched as it is: a list in one, or a space, was accepted and never matched (issue 56)
    for (const [types, index] of [
      [['orders,products'], 0],
      [['orders', ' products'], 1],
    ] as const) {
      for (const [method, path] of [
        ['POST', '/api/webhooks'],
        ['PATCH', `/api/webhooks/${hook.id}`],
      ] as const) {
        const r = await admin(method, `${one.url}${path}`, { url: receiverUrl, types });
        expect(r.status, `${method} ${JSON.stringify(types)}`).toBe(400);
        const errors = (r.body as { errors: { path: string; message: string }[] }).errors;
        expect(errors).toEqual([
          { path: `/types/${index}`, message: expect.stringContaining(JSON.stringify(types[index])) },
        ]);
      }
    }
    expect((await admin('GET', `${one.url}/api/webhooks/${hook.id}`)).body).toMatchObject({
      types: ['orders.created'],
    });
    const patched = await admin('PATCH', `${one.url}/api/webhooks/${hook.id}`, { enabled: false, description: 'off' });
    expect(patched.body).toMatchObject({ enabled: false, description: 'off' });
    expect((await admin('DELETE', `${one.url}/api/webhooks/${hook.id}`)).status).toBe(204);
    expect((await admin('GET', `${one.url}/api/webhooks/${hook.id}`)).status).toBe(404);
  });

  it('refuse loopback and private addresses unless WEBHOOK_ALLOW_PRIVATE=true', async () => {
    const strict = await startServer(dir, { DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET }, '/api/healthz');
    try {
      for (const url of [
        receiverUrl,
        'http://10.1.2.3/h',
        'http://[::1]/h',
        'http://169.254.169.254/latest',
        'http://localhost/h',
        'http://198.51.100.7/h',
        'http://[3fff::1]/h',
        'http://[2001:10::1]/h',
      ]) {
        const r = await admin('POST', `${strict.url}/api/webhooks`, { url });
        expect(r.status, url).toBe(400);
        expect((r.body as { detail: string }).detail).toMatch(/loopback, private or special-purpose/);
      }
    } finally {
      await strict.stop();
    }
  });
});

describe('delivery', () => {
  it('signs each attempt the Standard Webhooks way, and makes exactly N+1 attempts for a receiver that fails N times', async () => {
    const hook = await subscribe('/fail-2', ['orders']);
    const id = await order('signed');
    const [delivery] = await settled(hook, 1);
    expect(delivery).toMatchObject({ type: 'orders.created', status: 'delivered', attempts: 3, lastStatus: 204 });
    expect(delivery?.event).toMatchObject({ seq: delivery?.id, type: 'orders.created', recordId: id });
    const attempts = received.filter((r) => r.path === '/fail-2');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.id)).size).toBe(1);
    for (const attempt of attempts) {
      const verified = new Webhook(hook.secret).verify(attempt.body, {
        'webhook-id': String(attempt.headers['webhook-id']),
        'webhook-timestamp': String(attempt.headers['webhook-timestamp']),
        'webhook-signature': String(attempt.headers['webhook-signature']),
      });
      expect(verified).toMatchObject({ type: 'orders.created', recordId: id, data: { note: 'signed' } });
    }
    // a forged body fails the receiver's check
    const first = attempts[0] as Received;
    expect(() =>
      new Webhook(hook.secret).verify(first.body.replace('signed', 'forged'), {
        'webhook-id': String(first.headers['webhook-id']),
        'webhook-timestamp': String(first.headers['webhook-timestamp']),
        'webhook-signature': String(first.headers['webhook-signature']),
      }),
    ).toThrow();
    // products events are not sent to an orders subscription
    await admin('POST', `${one.url}/api/products`, { name: 'p' });
    await new Promise((wait) => setTimeout(wait, 1500));
    expect((await deliveries(hook)).map((d) => d.type)).toEqual(['orders.created']);
    await admin('DELETE', `${one.url}/api/webhooks/${hook.id}`);
  });

  it('marks a delivery failed after `attempts`, and retries it by hand', async () => {
    const hook = await subscribe('/down', ['orders']);
    await order('doomed');
    const [failed] = await settled(hook, 1);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, lastStatus: 503 });
    expect(received.filter((r) => r.path === '/down')).toHaveLength(3);
    // each failed attempt is said in the log of the instance that made it, by subscription id and seq
    const said = [one, two]
      .flatMap((server) => server.output().split('\n'))
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.webhook === hook.id && line.seq === failed?.id)
      .sort((a, b) => Number(a.attempt) - Number(b.attempt));
    expect(said.map((line) => [line.level, line.attempt, line.status, line.error])).toEqual([
      [40, 1, 503, 'the receiver answered 503'],
      [40, 2, 503, 'the receiver answered 503'],
      [50, 3, 503, 'the receiver answered 503'],
    ]);
    expect(said[2]?.msg).toBe('webhook delivery failed: no attempt is left');
    expect(JSON.stringify(said)).not.toContain(hook.secret);
    // the backoff doubles: the gap before the third attempt is about twice the one before the second
    const retry = await admin('POST', `${one.url}/api/webhooks/${hook.id}/deliveries/${String(failed?.id)}/retry`);
    expect(retry.status, retry.text).toBe(202);
    const [again] = await settled(hook, 1);
    expect(again).toMatchObject({ status: 'failed', attempts: 3 });
    expect(received.filter((r) => r.path === '/down')).toHaveLength(6);
    const log = (query: string) => admin('GET', `${one.url}/api/webhooks/${hook.id}/deliveries?${query}`);
    expect(((await log('status=failed')).body as { items: Delivery[] }).items.map((d) => d.id)).toEqual([failed?.id]);
    expect(((await log('status=delivered')).body as { items: Delivery[] }).items).toEqual([]);
    expect(((await log(`after=${String(failed?.id)}`)).body as { items: Delivery[] }).items).toEqual([]);
    expect((await log('status=lost')).status).toBe(400);
    const missing = await admin('POST', `${one.url}/api/webhooks/${hook.id}/deliveries/999999/retry`);
    expect(missing.status).toBe(404);
    await admin('DELETE', `${one.url}/api/webhooks/${hook.id}`);
  });

  it('sends to a fast receiver without waiting for a slow one', async () => {
    const slow = await subscribe('/sluggish', ['products']);
    const fast = await subscribe('/quick', ['orders']);
    // the slow receiver's events first, more than two instances took at a time in lock-step rounds: its deliveries
    // are made, due before the fast one's, and sends are under way
    for (let i = 0; i < 16; i += 1)
      expect((await admin('POST', `${one.url}/api/products`, { name: `p${i}` })).status).toBe(201);
    await waitFor('the slow receiver’s deliveries', async () =>
      (await deliveries(slow)).length === 16 ? true : undefined,
    );
    await waitFor('the slow receiver to be sent to', () =>
      received.some((r) => r.path === '/sluggish') ? true : undefined,
    );
    await Promise.all(Array.from({ length: 20 }, (_, i) => order(`quick ${i}`, i % 2 ? one : two)));
    const quick = await waitFor('the fast receiver’s 20 events', () => {
      const sent = received.filter((r) => r.path === '/quick');
      return sent.length >= 20 ? sent : undefined;
    });
    // each in the time of fast sends (milliseconds) after its event was committed: none waited for a slow answer
    const waited = quick.map((r) => r.at - Date.parse((JSON.parse(r.body) as { at: string }).at));
    expect(Math.max(...waited)).toBeLessThan(SLUGGISH_MS / 2);
    expect((await settled(fast, 20)).every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    // the slow one had at most PER_WEBHOOK sends under way from each instance, and each of its events delivered once
    const slowly = await settled(slow, 16, one, 30_000);
    expect(slowly.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    expect(received.filter((r) => r.path === '/sluggish')).toHaveLength(16);
    expect(mostUnderWay.get('/sluggish')).toBeLessThanOrEqual(2 * PER_WEBHOOK);
    await admin('DELETE', `${one.url}/api/webhooks/${slow.id}`);
    await admin('DELETE', `${one.url}/api/webhooks/${fast.id}`);
  });

  it('refuses to retry a delivery that did not fail', async () => {
    const hook = await subscribe('/ok', ['orders']);
    await order('fine');
    const [done] = await settled(hook, 1);
    expect(done?.status).toBe('delivered');
    const r = await admin('POST', `${one.url}/api/webhooks/${hook.id}/deliveries/${String(done?.id)}/retry`);
    expect(r.status).toBe(409);
    await admin('DELETE', `${one.url}/api/webhooks/${hook.id}`);
  });
});

describe('instances', () => {
  it('never send one delivery twice at once, and deliver everything', async () => {
    const hook = await subscribe('/slow', ['orders']);
    overlapped = 0;
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => order(`both ${i}`, i % 2 ? one : two)));
    const all = await settled(hook, 30, two);
    expect(all.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    const sent = received.filter((r) => r.path === '/slow');
    expect(sent).toHaveLength(30);
    expect(new Set(sent.map((r) => (JSON.parse(r.body) as { recordId: string }).recordId))).toEqual(new Set(ids));
    expect(overlapped).toBe(0);
    await admin('DELETE', `${one.url}/api/webhooks/${hook.id}`);
  });

  it('finish the sends under way when stopped, and deliver after a SIGKILL once restarted', async () => {
    // graceful: a send under way when SIGTERM comes is finished and recorded, not sent again
    const long = await subscribe('/long', ['orders']);
    await order('in flight', one);
    await waitFor('the send to start', () => (received.some((r) => r.path === '/long') ? true : undefined));
    await Promise.all([one.stop(), two.stop()]);
    one = await startServer(dir, env(), '/api/healthz');
    const [finished] = await deliveries(long);
    expect(finished).toMatchObject({ status: 'delivered', attempts: 1 });
    await admin('DELETE', `${one.url}/api/webhooks/${long.id}`);

    // SIGKILL after the commit, while the delivery waits for its retry (the receiver refused the first attempt):
    // the restarted server delivers it
    closedUntil = true;
    const later = await subscribe('/later', ['orders']);
    await order('survives', one);
    await waitFor('a refused attempt', () => (received.some((r) => r.path === '/later') ? true : undefined));
    await waitFor('the attempt recorded', async () =>
      (await deliveries(later))[0]?.attempts === 1 ? true : undefined,
    );
    one.process.kill('SIGKILL');
    await new Promise((exited) => one.process.once('exit', exited));
    closedUntil = false;
    one = await startServer(dir, env(), '/api/healthz');
    two = await startServer(dir, env(), '/api/healthz');
    const [delivered] = await settled(later, 1);
    expect(delivered).toMatchObject({ status: 'delivered', lastStatus: 200 });
    expect(received.filter((r) => r.path === '/long')).toHaveLength(1);
  });
});
