import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { v7 as uuidv7 } from 'uuid';

/** What an incoming X-Request-Id may be to be kept: 1 to 128 characters of `A-Z a-z 0-9 . _ : -`. */
const GIVEN_ID = /^[A-Za-z0-9._:-]+$/;

/** Whether `id` is a request id a client (or a proxy in front) may give. */
export const isGivenRequestId = (id: string): boolean => id.length <= 128 && GIVEN_ID.test(id);

/**
 * Fastify's `genReqId`: the request's X-Request-Id when it is one a client may give (a proxy's or a caller's id, so
 * that one request reads the same in every log it crosses), else a UUIDv7 (time-ordered: ids sort as requests
 * arrived). Anything else (too long, other characters, several headers Node joined with commas) is replaced, never
 * trusted into the logs and the answers. Fastify binds it to every log line of the request (`reqId`).
 */
export const requestId: NonNullable<FastifyServerOptions['genReqId']> = (request) => {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && isGivenRequestId(given) ? given : uuidv7();
};

/**
 * Every answer says its request's id in X-Request-Id (problem documents also in `instance`). The first onRequest
 * hook, so that an answer sent by a later one (a 429, a 503 while closing) has it too; a plain callback.
 */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}
