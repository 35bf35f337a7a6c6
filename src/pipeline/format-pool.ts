import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PACKAGE } from '../package-folders.js';

/** What a format worker (bin/format-worker.mjs) is sent for one file. */
export interface FormatJob {
  /** for error messages */
  path: string;
  content: string;
  parser: string;
  options: object;
}

interface Reply {
  index: number;
  content?: string;
  error?: string;
}

interface Pending {
  job: FormatJob;
  index: number;
  resolve: (content: string) => void;
  reject: (error: Error) => void;
}

const WORKER_URL = pathToFileURL(join(PACKAGE, 'bin/format-worker.mjs'));

/** Files a worker holds at a time: the next one is there when it finishes one. */
const AHEAD = 2;

/**
 * Worker threads that run prettier, started before there is anything to format: they load prettier while this
 * thread parses the definition and renders, and this thread never loads it. Files are queued markdown first (by far
 * the slowest for its size), then the longest first, so that no thread is left with one big file while the others
 * wait. A file given twice with the same text is formatted once.
 */
export class FormatPool {
  readonly #workers: Worker[] = [];
  readonly #sent = new Map<Worker, Map<number, Pending>>();
  readonly #queue: Pending[] = [];
  readonly #results = new Map<string, { job: FormatJob; formatted: Promise<string> }>();
  #indexes = 0;
  #failure: Error | undefined;
  #closed = false;

  constructor(size: number) {
    for (let i = 0; i < size; i++) this.#workers.push(this.#start());
  }

  /** The formatted text of each file, in order; the longest are sent first. */
  format(jobs: readonly FormatJob[]): Promise<string>[] {
    const formatted = jobs.map((job) => {
      const known = this.#results.get(job.path);
      if (known !== undefined && sameJob(known.job, job)) return known.formatted;
      const promise = new Promise<string>((resolve, reject) => {
        if (this.#failure === undefined) this.#queue.push({ job, index: this.#indexes++, resolve, reject });
        else reject(this.#failure);
      });
      // handled here, so that a file handed over ahead and never asked for again cannot fail the process
      promise.catch(() => undefined);
      this.#results.set(job.path, { job, formatted: promise });
      return promise;
    });
    this.#queue.sort((a, b) => weight(b.job) - weight(a.job));
    this.#dispatch();
    return formatted;
  }

  /** Stops the workers; what they had not formatted yet fails. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#fail(new Error('the format workers were stopped'));
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  #start(): Worker {
    // a larger young generation: prettier allocates much and briefly (fewer scavenges)
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 64 } });
    const sent = new Map<number, Pending>();
    this.#sent.set(worker, sent);
    worker.on('message', (reply: Reply) => {
      const pending = sent.get(reply.index);
      sent.delete(reply.index);
      if (reply.content !== undefined) pending?.resolve(reply.content);
      else pending?.reject(new Error(`prettier failed on ${pending.job.path}: ${reply.error}`));
      this.#dispatch();
    });
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => {
      if (!this.#closed) this.#fail(new Error(`a format worker stopped (exit code ${code})`));
    });
    return worker;
  }

  #dispatch(): void {
    for (const worker of this.#workers) {
      const sent = this.#sent.get(worker) ?? new Map<number, Pending>();
      for (let next = this.#queue[0]; next !== undefined && sent.size < AHEAD; next = this.#queue[0]) {
        this.#queue.shift();
        sent.set(next.index, next);
        worker.postMessage({ index: next.index, ...next.job });
      }
    }
  }

  /** Fails every file not formatted yet, and those asked for later. */
  #fail(error: Error): void {
    this.#failure ??= error;
    const pending = [...this.#queue.splice(0), ...[...this.#sent.values()].flatMap((sent) => [...sent.values()])];
    for (const sent of this.#sent.values()) sent.clear();
    for (const p of pending) p.reject(this.#failure);
  }
}

const sameJob = (a: FormatJob, b: FormatJob): boolean =>
  a.content === b.content && a.parser === b.parser && a.options === b.options;

/** The order of the queue: an estimate of how long a file takes. */
const weight = (job: FormatJob): number => job.content.length * (job.parser === 'markdown' ? 10 : 1);
