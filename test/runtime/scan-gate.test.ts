import { describe, expect, it } from 'vitest';
import { ConfigError, readMaxEventLoopDelay, readScanSettings } from '../../runtime/src/config.js';
import { ScanRefusedError } from '../../runtime/src/db/database.js';
import { ScanGate } from '../../runtime/src/db/scan-gate.js';

/** A task that ends when `finish` is called: a statement under way. */
function pending(): { task: () => Promise<string>; finish: () => void } {
  let finish = (): void => undefined;
  const done = new Promise<string>((resolve) => (finish = () => resolve('rows')));
  return { task: () => done, finish };
}

const reasonOf = (promise: Promise<unknown>): Promise<[string, number] | 'answered'> =>
  promise.then(
    () => 'answered',
    (error: unknown) => {
      if (!(error instanceof ScanRefusedError)) throw error;
      return [error.reason, error.retryAfter];
    },
  );

describe('the caps on statements that scan', () => {
  it('runs at most `slots`, queues at most `queue`, then refuses the rest as busy', async () => {
    const gate = new ScanGate({ slots: 2, queue: 1, perClient: 10, timeoutMs: 0 });
    const tasks = [pending(), pending(), pending()];
    const runs = tasks.map((t, i) => gate.run(() => `c${i}`, t.task));
    expect(gate.load).toEqual({ running: 2, waiting: 1 });
    expect(await reasonOf(gate.run(() => 'c9', pending().task))).toEqual(['busy', 1]);
    for (const t of tasks) t.finish();
    expect(await Promise.all(runs)).toEqual(['rows', 'rows', 'rows']);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('gives one client at most `perClient` running or waiting: the next is its own 429, not the others’', async () => {
    const gate = new ScanGate({ slots: 1, queue: 5, perClient: 2, timeoutMs: 0 });
    const first = pending();
    const runs = [gate.run(() => 'a', first.task), gate.run(() => 'a', first.task)];
    expect(await reasonOf(gate.run(() => 'a', first.task))).toEqual(['client', 1]);
    const other = gate.run(() => 'b', first.task);
    first.finish();
    expect(await Promise.all([...runs, other])).toEqual(['rows', 'rows', 'rows']);
    // its share is back once its statements have answered
    expect(
      await reasonOf(
        gate.run(
          () => 'a',
          async () => 'again',
        ),
      ),
    ).toBe('answered');
  });

  it('answers at the deadline: a waiting statement leaves the queue, a running one keeps its slot until it ends', async () => {
    const gate = new ScanGate({ slots: 1, queue: 1, perClient: 5, timeoutMs: 50 });
    const running = pending();
    const started = Date.now();
    const outcomes = await Promise.all([
      reasonOf(gate.run(() => 'a', running.task)),
      reasonOf(gate.run(() => 'b', pending().task)),
    ]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(outcomes).toEqual([
      ['deadline', 1],
      ['deadline', 1],
    ]);
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    // the slot is still taken: the next waits, and runs when the statement under way ends
    const next = gate.run(
      () => 'c',
      async () => 'next',
    );
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    running.finish();
    expect(await next).toBe('next');
  });

  it('passes a failed statement’s error on, and frees its slot', async () => {
    const gate = new ScanGate({ slots: 1, queue: 0, perClient: 1, timeoutMs: 0 });
    await expect(
      gate.run(
        () => 'a',
        async () => Promise.reject(new Error('no such column')),
      ),
    ).rejects.toThrow('no such column');
    expect(
      await gate.run(
        () => 'a',
        async () => 'fine',
      ),
    ).toBe('fine');
  });
});

describe('the settings of the caps', () => {
  it.each<[Record<string, string>, object]>([
    [{}, { slots: 0, queue: 0, perClient: 2 }],
    [
      { DATABASE_SCAN_POOL_SIZE: '3', DATABASE_SCAN_QUEUE: '20', DATABASE_SCAN_PER_CLIENT: '1' },
      { slots: 3, queue: 20, perClient: 1 },
    ],
    [
      { DATABASE_SCAN_POOL_SIZE: '', DATABASE_SCAN_QUEUE: '0' },
      { slots: 0, queue: 0, perClient: 2 },
    ],
  ])('given %j, are %j (0: the default for the database)', (env, want) => {
    expect(readScanSettings(env)).toEqual(want);
  });

  it.each<[Record<string, string>, RegExp]>([
    [{ DATABASE_SCAN_POOL_SIZE: 'four' }, /DATABASE_SCAN_POOL_SIZE must be a whole number from 0 to 256, not "four"/],
    [{ DATABASE_SCAN_POOL_SIZE: '257' }, /from 0 to 256/],
    [{ DATABASE_SCAN_QUEUE: '-1' }, /DATABASE_SCAN_QUEUE must be a whole number from 0 to 10000/],
    [{ DATABASE_SCAN_PER_CLIENT: '0' }, /DATABASE_SCAN_PER_CLIENT must be a whole number from 1 to 10000, not "0"/],
    [{ MAX_EVENT_LOOP_DELAY: '1s' }, /MAX_EVENT_LOOP_DELAY must be a whole number of milliseconds/],
  ])('given %j, refuse to start: %s', (env, message) => {
    expect(() => {
      readScanSettings(env);
      readMaxEventLoopDelay(env);
    }).toThrow(ConfigError);
    expect(() => {
      readScanSettings(env);
      readMaxEventLoopDelay(env);
    }).toThrow(message);
  });
});
