import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { DatabaseUnavailableError, type SqlValue } from './database.js';
import type { ScanAnswer, ScanRequest } from './scan-worker.js';

/**
 * DATABASE_SCAN_POOL_SIZE's default on SQLite: one thread per core beyond the one that serves HTTP, at least one
 * and at most four (a scan is bound by memory and the disk more than by its core).
 */
export const defaultScanWorkers = (): number => Math.min(4, Math.max(1, availableParallelism() - 1));

/**
 * The worker threads that run SQLite's statements that scan (see cost.ts), each on a read-only connection of its own
 * to `file` (scan-worker.ts), started on the first such statement: the thread that serves HTTP never runs one. The
 * caps of scan-gate.ts give a worker one statement at a time; a worker that dies is started again on the next.
 */
export class ScanWorkers {
  readonly #idle: Worker[] = [];
  readonly #started: Worker[] = [];
  readonly #pending = new Map<
    number,
    { resolve: (rows: SqlValue[][]) => void; reject: (error: Error) => void }
  >();
  /** which statement each worker runs */
  readonly #busy = new Map<Worker, number>();
  #ids = 0;
  #closed = false;

  constructor(
    private readonly file: string,
    private readonly size: number,
  ) {}

  run(text: string, params: readonly SqlValue[]): Promise<SqlValue[][]> {
    // a statement queued before the database closed starts no worker after (it would keep the process alive)
    if (this.#closed) return Promise.reject(new DatabaseUnavailableError('the database is closed'));
    const worker = this.#idle.pop() ?? (this.#started.length < this.size ? this.#start() : undefined);
    // the gate lets no more statements run than there are workers
    if (worker === undefined)
      return Promise.reject(new DatabaseUnavailableError('every scan worker is busy'));
    const id = (this.#ids += 1);
    this.#busy.set(worker, id);
    return new Promise<SqlValue[][]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, text, params: [...params] } satisfies ScanRequest);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const workers = this.#started.splice(0);
    this.#idle.length = 0;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #start(): Worker {
    // built, this file is dist/db/scan-workers.js beside scan-worker.js; run from source (tsx, vitest), the worker is
    // TypeScript: it registers tsx's loader before it loads it
    const source = import.meta.url.endsWith('.ts');
    const script = new URL(`./scan-worker.${source ? 'ts' : 'js'}`, import.meta.url);
    const options = { workerData: { file: this.file } };
    const worker = source
      ? new Worker(
          `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(script.href)}); })`,
          { ...options, eval: true },
        )
      : new Worker(script, options);
    this.#started.push(worker);
    worker.on('message', (answer: ScanAnswer) => {
      const waiting = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      this.#busy.delete(worker);
      this.#idle.push(worker);
      if (waiting === undefined) return;
      if ('rows' in answer) waiting.resolve(answer.rows);
      else waiting.reject(scanError(answer.error));
    });
    const lost = (error: Error): void => {
      const id = this.#busy.get(worker);
      this.#busy.delete(worker);
      this.#started.splice(this.#started.indexOf(worker) >>> 0, 1);
      const at = this.#idle.indexOf(worker);
      if (at >= 0) this.#idle.splice(at, 1);
      const waiting = id === undefined ? undefined : this.#pending.get(id);
      if (id !== undefined) this.#pending.delete(id);
      waiting?.reject(new DatabaseUnavailableError(`a scan worker stopped: ${error.message}`));
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exit code ${code}`)));
    // a worker does not keep the process alive; after its listeners, since a 'message' listener refs its port again
    worker.unref();
    return worker;
  }
}

/** A worker's error as the main thread's would be: busy is a 503, the rest an error of the server. */
function scanError({ message, code }: { message: string; code: string | undefined }): Error {
  if (code === 'SQLITE_BUSY') return new DatabaseUnavailableError(message);
  return Object.assign(new Error(message), { code });
}
