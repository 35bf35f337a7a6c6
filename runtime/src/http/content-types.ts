import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, HttpProblem, problem } from './problem.js';
import { NO_BODY } from './validation.js';

/** The media types a body may have, in the words of a 415. */
export const ACCEPTED_BODIES =
  'send the body as application/json (PATCH also takes application/merge-patch+json)';

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** In `u` mode a surrogate pair is one code point: only a lone surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Bodies are JSON: `application/json`, and for PATCH also `application/merge-patch+json` (RFC 7396).
 * Anything else, `text/plain` included (Fastify would read it as a string), is a 415.
 *
 * A body is taken exactly as sent or refused with a 400 that says why, never altered: bytes that are not UTF-8 and
 * strings holding a lone UTF-16 surrogate (`"\ud800"`, which no database stores as text) are refused rather than
 * replaced by U+FFFD; so is a key named `__proto__`, or `constructor` holding `prototype`, anywhere in the body
 * (code that copies such an object could change the prototype of every object).
 */
export function installContentTypes(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    ['application/json', 'application/merge-patch+json'],
    { parseAs: 'buffer' },
    (request, body, done) => {
      try {
        done(null, parseBody(request, body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

function parseBody(request: FastifyRequest, body: Buffer): unknown {
  const type = request.headers['content-type'] ?? '';
  // the type most bodies come with needs none of the checks of its parameters
  if (type !== 'application/json') checkType(request, type.toLowerCase());
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    throw new HttpProblem(
      415,
      'Unsupported Media Type',
      `Content-Encoding ${encoding} is not accepted: send the body uncompressed`,
    );
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw problem('malformed', 'the body is not valid UTF-8 text');
  }
  if (text.trim() === '') {
    // a route that takes no body (a DELETE, an action without input) takes none said to be JSON, as clients often
    // send: a header of their HTTP library's defaults
    const takes = request.routeOptions.schema?.body;
    if (takes === undefined || takes === NO_BODY) return null;
    throw problem('malformed', 'the body is empty: send a JSON value');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw problem('malformed', 'the body is not well-formed JSON');
  }
  // only a body that could hold them is walked: most bodies pass these tests on the text alone
  const escapes = text.includes('\\u');
  // Infinity takes an exponent of three digits or a run of 309: other bodies are not walked for it
  const huge = /\d[eE][+-]?\d{3}/.test(text) || hasDigitRun(text, 309);
  if (escapes || huge || text.includes('__proto__') || text.includes('constructor'))
    check(value, escapes, huge);
  return value;
}

/** A 415 for merge-patch on another method than PATCH, and for a charset other than UTF-8. */
function checkType(request: FastifyRequest, type: string): void {
  if (type.includes('merge-patch') && request.method !== 'PATCH') {
    throw new HttpProblem(
      415,
      'Unsupported Media Type',
      `application/merge-patch+json is for PATCH only: ${ACCEPTED_BODIES}`,
    );
  }
  // JSON is UTF-8 (RFC 8259): a body said to be in another charset, or compressed, is not read as if it were not
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/.exec(type)?.[1];
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new HttpProblem(
      415,
      'Unsupported Media Type',
      `the body must be UTF-8, not ${charset}: ${ACCEPTED_BODIES}`,
    );
  }
}

/** Whether `text` holds `length` digits in a row, in one pass. */
function hasDigitRun(text: string, length: number): boolean {
  if (text.length < length) return false;
  let run = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    run = code >= 48 && code <= 57 ? run + 1 : 0;
    if (run >= length) return true;
  }
  return false;
}

/**
 * Refuses what must not be stored or merged: lone surrogates (when the text has \u escapes), numbers too large for a
 * double (`1e400` parses to Infinity, which JSON stores as null) and prototype keys.
 */
function check(root: unknown, escapes: boolean, huge: boolean): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (huge && typeof value === 'number' && !Number.isFinite(value)) {
      throw badRequest(
        'the body holds a number too large to store (over about 1.8e308): it is refused, not turned into null',
      );
    }
    if (typeof value === 'string') {
      if (escapes && LONE_SURROGATE.test(value)) throw loneSurrogate();
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) {
        if (escapes && LONE_SURROGATE.test(key)) throw loneSurrogate();
        if (
          key === '__proto__' ||
          (key === 'constructor' && typeof member === 'object' && member !== null && 'prototype' in member)
        ) {
          throw badRequest(
            `the body holds a key named "${key === '__proto__' ? '__proto__' : 'constructor.prototype'}", which is refused: it could change the prototype of objects built from it`,
          );
        }
        pending.push(member);
      }
    }
  }
}

const loneSurrogate = () =>
  badRequest(
    'the body holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair), which is not text: it is refused, not altered',
  );
