import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { RequestLog, RequestLogger, requestLogger } from '../../runtime/src/http/request-log.js';

type Line = Record<string, unknown> & { msg: string; reqId?: string };

/** A server logging as the generated one does, into `lines`; GET /warn logs a warning through request.log. */
async function server(level: string): Promise<{ app: FastifyInstance; lines: Line[] }> {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Line);
      done();
    },
  });
  const app = Fastify({
    logger: { level, stream },
    logController: new RequestLog(),
    childLoggerFactory: requestLogger,
  });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/warn', async (request) => {
    request.log.warn({ detail: 1 }, 'careful');
    return { ok: true };
  });
  app.get('/child', async (request) => {
    request.log.child({ part: 'inner' }).info('from a child');
    return { ok: true };
  });
  app.get('/fail', async () => {
    throw new Error('boom');
  });
  await app.ready();
  return { app, lines };
}

describe('request logging', () => {
  it('writes one line per request, when it is answered, with the request id, method, url and status', async () => {
    const { app, lines } = await server('info');
    await app.inject({ url: '/ok' });
    await app.inject({ url: '/nowhere' });
    const requests = lines.filter((line) => line.msg === 'request completed');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      reqId: expect.any(String),
      method: 'GET',
      url: '/ok',
      ip: '127.0.0.1',
      statusCode: 200,
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(requests[1]).toMatchObject({ url: '/nowhere', statusCode: 404 });
    expect(requests[0]?.reqId).not.toBe(requests[1]?.reqId);
    expect(lines.filter((line) => line.msg === 'incoming request')).toEqual([]);
  });

  it('at debug, also writes a line when a request arrives', async () => {
    const { app, lines } = await server('debug');
    await app.inject({ url: '/ok' });
    expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
    expect(lines[0]).toMatchObject({ method: 'GET', url: '/ok', reqId: lines[1]?.reqId });
  });

  it('binds the request id to what is logged through request.log and its children', async () => {
    const { app, lines } = await server('info');
    await app.inject({ url: '/warn' });
    await app.inject({ url: '/child' });
    const warning = lines.find((line) => line.msg === 'careful');
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(warning).toMatchObject({ level: 40, detail: 1, reqId: completed[0]?.reqId });
    expect(lines.find((line) => line.msg === 'from a child')).toMatchObject({
      part: 'inner',
      reqId: completed[1]?.reqId,
    });
  });

  it('writes no request lines at warn, but warnings and errors still carry the request id', async () => {
    const { app, lines } = await server('warn');
    await app.inject({ url: '/ok' });
    await app.inject({ url: '/warn' });
    await app.inject({ url: '/fail' });
    expect(lines.map((line) => line.msg)).toEqual(['careful', 'boom']);
    expect(lines.every((line) => typeof line.reqId === 'string')).toBe(true);
  });
});

describe('a request logger', () => {
  it('makes no child logger until a line at an enabled level is written', () => {
    const made: object[] = [];
    const parent = {
      level: 'warn',
      isLevelEnabled: (level: string) => ['warn', 'error', 'fatal'].includes(level),
      child(bindings: object) {
        made.push(bindings);
        return { ...parent, warn: () => undefined };
      },
      fatal: () => undefined,
      error: () => undefined,
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      trace: () => undefined,
      silent: () => undefined,
    };
    const logger = new RequestLogger(parent, { reqId: 'req-1' });
    logger.info('hidden');
    logger.debug({ a: 1 }, 'hidden');
    expect(made).toEqual([]);
    expect(logger.level).toBe('warn');
    logger.warn('shown');
    expect(made).toEqual([{ reqId: 'req-1' }]);
  });
});
