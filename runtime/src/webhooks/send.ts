import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress, parseTarget } from './address.js';
import { tracing } from '../telemetry/tracing.js';

/** A delivery answered within this long, with a 2xx, is delivered. */
export const SEND_TIMEOUT_MS = 10_000;
/** What of a receiver's answer is read: its status; the body is drained, never kept. */
const USER_AGENT = 'restsmith-webhooks/1';

/** How one attempt ended: the receiver's status, or why none came (a timeout, a refused address, a reset). */
export type Attempt = { status: number; error: null } | { status: null; error: string };

/**
 * POSTs an event to a subscription's URL, signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`: v1 HMAC-SHA256 of `id.timestamp.body`, by the `standardwebhooks` library). Redirects are not
 * followed (a redirect is a non-2xx: retried), and the address connected to is checked (see address.ts). With traces
 * exported, each send is a span, whose `traceparent` the receiver gets (node:http, whose `lookup` the check needs,
 * is not what @opentelemetry/instrumentation-undici sees: see telemetry/otel.ts).
 */
export function send(
  url: string,
  secret: string,
  id: string,
  body: string,
  allowPrivate: boolean,
): Promise<Attempt> {
  const now = new Date();
  const signature = new Webhook(secret).sign(id, now, body);
  const target = parseTarget(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // a URL whose host is an address connects without a lookup: it is checked here instead
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.resolve({
      status: null,
      error: `${literal} is a loopback, private or special-purpose address: refused`,
    });
  }
  const span = tracing()?.webhookSend(target, id);
  return new Promise((resolve) => {
    let settled = false;
    let answered: number | undefined;
    const settle = (attempt: Attempt): void => {
      if (settled) return;
      settled = true;
      span?.end(attempt.status, attempt.error);
      resolve(attempt);
    };
    const outgoing = request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(allowPrivate),
        timeout: SEND_TIMEOUT_MS,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': USER_AGENT,
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
          ...span?.headers,
        },
      },
      (response) => {
        answered = response.statusCode ?? 0;
        response.resume();
        response.on('end', () => settle({ status: response.statusCode ?? 0, error: null }));
        response.on('error', () => settle({ status: response.statusCode ?? 0, error: null }));
      },
    );
    // the whole attempt, not only an idle socket, is bounded
    const timer = setTimeout(
      () => outgoing.destroy(new Error(`no answer within ${SEND_TIMEOUT_MS / 1000} s`)),
      SEND_TIMEOUT_MS,
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${SEND_TIMEOUT_MS / 1000} s`)));
    outgoing.on('error', (error) => settle({ status: null, error: error.message.slice(0, 500) }));
    outgoing.on('close', () => {
      clearTimeout(timer);
      settle(
        answered === undefined
          ? { status: null, error: 'the connection closed without an answer' }
          : { status: answered, error: null },
      );
    });
    outgoing.end(body);
  });
}
