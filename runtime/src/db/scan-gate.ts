import { ScanRefusedError } from './database.js';

/**
 * The caps on statements that scan (see cost.ts): at most `slots` run at once (SQLite: the worker threads;
 * PostgreSQL: the connections of the scan pool), at most `queue` more wait, one client has at most `perClient`
 * running or waiting, and each answers within `timeoutMs` (DATABASE_STATEMENT_TIMEOUT; 0: no limit) of being asked.
 * Beyond its share a client gets ScanRefusedError('client') (a 429), when every slot and the queue are taken
 * ScanRefusedError('busy') (a 503), and a statement still waiting or running at its deadline ScanRefusedError
 * ('deadline') (a 503): one that runs goes on to its end, its slot taken until then (neither better-sqlite3 nor a
 * worker thread can stop a statement under way; PostgreSQL cancels it at its own statement_timeout).
 * Nothing here is kept per client beyond its statements under way: the map holds at most slots + queue keys.
 */
export interface ScanLimits {
  slots: number;
  queue: number;
  perClient: number;
  timeoutMs: number;
}

interface Waiter {
  start: () => void;
  refuse: (error: Error) => void;
}

export class ScanGate {
  #running = 0;
  readonly #waiting: Waiter[] = [];
  /** by client: its statements running or waiting */
  readonly #clients = new Map<string, number>();

  constructor(readonly limits: ScanLimits) {}

  /** Runs `task` when a slot is free, for `client` (the rate limit's key: the token's subject, or the address). */
  run<T>(clientOf: () => string, task: () => Promise<T>): Promise<T> {
    const client = clientOf();
    const { slots, queue, perClient, timeoutMs } = this.limits;
    const mine = this.#clients.get(client) ?? 0;
    if (mine >= perClient) return Promise.reject(new ScanRefusedError('client', 1));
    if (this.#running >= slots && this.#waiting.length >= queue)
      return Promise.reject(new ScanRefusedError('busy', 1));
    this.#clients.set(client, mine + 1);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        return true;
      };
      const waiter: Waiter = {
        start: () => {
          this.#running += 1;
          task()
            .then(
              (value) => settle() && resolve(value),
              (error: unknown) => settle() && reject(error),
            )
            .finally(() => {
              this.#running -= 1;
              this.#leave(client);
              this.#next();
            });
        },
        refuse: (error) => {
          if (settle()) reject(error);
        },
      };
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          const at = this.#waiting.indexOf(waiter);
          // still waiting: it leaves the queue; running: it keeps its slot until it ends (see above)
          if (at >= 0) {
            this.#waiting.splice(at, 1);
            this.#leave(client);
          }
          waiter.refuse(new ScanRefusedError('deadline', Math.max(1, Math.ceil(timeoutMs / 1000))));
        }, timeoutMs);
      }
      if (this.#running < slots) waiter.start();
      else this.#waiting.push(waiter);
    });
  }

  /** statements running now, and waiting: for tests and metrics */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  #leave(client: string): void {
    const left = (this.#clients.get(client) ?? 1) - 1;
    if (left <= 0) this.#clients.delete(client);
    else this.#clients.set(client, left);
  }

  #next(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next.start();
  }
}
