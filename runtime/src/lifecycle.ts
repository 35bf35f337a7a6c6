import {
  ServerResponse,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
} from 'node:http';
import type { ReadinessCheck } from './http/health.js';

/**
 * Where a server is in its life (see shutdown.ts for the steps): `serving`; `draining` once told to stop (SIGTERM):
 * /readyz answers 503 so that load balancers take the instance out, and every request is served as before;
 * `stopping` once it no longer accepts connections: every answer closes its connection (`Connection: close`),
 * the requests in flight included, and the event streams end with a hint of when to reconnect.
 */
export class Lifecycle {
  #state: 'serving' | 'draining' | 'stopping' = 'serving';
  readonly #onStop: (() => void)[] = [];

  get state(): 'serving' | 'draining' | 'stopping' {
    return this.#state;
  }

  get stopping(): boolean {
    return this.#state === 'stopping';
  }

  /** /readyz answers 503 from now on. */
  drain(): void {
    if (this.#state === 'serving') this.#state = 'draining';
  }

  /** Every answer closes its connection from now on, and what `onStop` was given runs (once). */
  stop(): void {
    if (this.#state === 'stopping') return;
    this.#state = 'stopping';
    for (const run of this.#onStop.splice(0)) run();
  }

  /** Runs `run` when the server stops accepting connections (at once if it has). */
  onStop(run: () => void): void {
    if (this.#state === 'stopping') run();
    else this.#onStop.push(run);
  }

  /** The readiness check of the lifecycle (see http/health.ts): not ready from the moment it drains. */
  readonly readiness: ReadinessCheck = () =>
    this.#state === 'serving' ? undefined : 'the server is shutting down';
}

/**
 * The responses of a server whose lifecycle is `lifecycle` (Node's `ServerResponse` option, which Fastify passes on
 * as `http.ServerResponse`): once it stops, each one says `Connection: close` and its connection closes after it,
 * a response to a request already in flight included. A check of one flag as the headers are written: no hook runs
 * per request for it.
 */
export function closingResponses(lifecycle: Lifecycle): typeof ServerResponse {
  return class ClosingResponse<
    Request extends IncomingMessage = IncomingMessage,
  > extends ServerResponse<Request> {
    override writeHead(
      statusCode: number,
      message?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
      headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    ): this {
      // what Node does itself for a response that cannot keep its connection: `Connection: close`, then the end
      if (lifecycle.stopping) this.shouldKeepAlive = false;
      return typeof message === 'string' || message === undefined
        ? super.writeHead(statusCode, message, headers)
        : super.writeHead(statusCode, message);
    }
  };
}
