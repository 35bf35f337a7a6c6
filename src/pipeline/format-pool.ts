import { Worker } from 'node:worker_threads';

/** What a format worker (bin/format-worker.mjs) is sent for one file. */
export interface FormatJob {
  /** for error messages */
  path: string;
  content: string;
  parser: string | undefined;
  options: object;
}

const WORKER_URL = new URL('../../bin/format-worker.mjs', import.meta.url);

/**
 * Shares a queue of file indexes between this thread (`here`) and `workers` worker threads, one file at a time, until
 * it is empty: no thread is left with one big file while the others wait. `done` receives each worker's result.
 */
export async function shareOut(
  queue: number[],
  workers: number,
  here: (index: number) => Promise<void>,
  job: (index: number) => FormatJob,
  done: (index: number, content: string) => void,
): Promise<void> {
  // a larger young generation: prettier allocates much and briefly (fewer scavenges)
  const threads = Array.from(
    { length: workers },
    () => new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 64 } }),
  );
  try {
    await Promise.all([takeAll(queue, here), ...threads.map((worker) => drain(worker, queue, job, done))]);
  } finally {
    await Promise.all(threads.map((worker) => worker.terminate()));
  }
}

/** Sends a worker the files of the queue, two at a time so that it never waits for its next one. */
async function drain(
  worker: Worker,
  queue: number[],
  job: (index: number) => FormatJob,
  done: (index: number, content: string) => void,
): Promise<void> {
  const pending = new Map<number, (reply: { content?: string; error?: string }) => void>();
  worker.on('message', (reply: { index: number; content?: string; error?: string }) =>
    pending.get(reply.index)?.(reply),
  );
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  const send = async (index: number): Promise<void> => {
    const sent = job(index);
    const reply = await Promise.race([
      new Promise<{ content?: string; error?: string }>((resolve) => {
        pending.set(index, resolve);
        worker.postMessage({ index, ...sent });
      }),
      failed,
    ]);
    if (reply.content === undefined) throw new Error(`prettier failed on ${sent.path}: ${reply.error}`);
    done(index, reply.content);
  };
  await Promise.all([takeAll(queue, send), takeAll(queue, send)]);
}

/** Runs `work` on indexes taken from the shared `queue` until it is empty. */
async function takeAll(queue: number[], work: (index: number) => Promise<void>): Promise<void> {
  for (let i = queue.shift(); i !== undefined; i = queue.shift()) await work(i);
}
