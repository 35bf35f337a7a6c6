import { describe, expect, it } from 'vitest';
import type { Database, Row, SqlValue, Statement } from '../../runtime/src/db/database.js';
import { Settled } from '../../runtime/src/events/settled.js';

/**
 * The readers' barrier of one instance (events/settled.ts), on a stand-in PostgreSQL whose barrier statement answers
 * when the test says: one barrier at a time, readers that come meanwhile share the next one (never the one under way),
 * and a barrier that timed out on the lock gives the last bound known.
 */
function fakeDatabase() {
  const calls: { params: readonly SqlValue[]; answer: (row: Row | Error) => void }[] = [];
  const statement = {
    get: (params: readonly SqlValue[]) =>
      new Promise<Row | undefined>((resolve, reject) => {
        calls.push({ params, answer: (row) => (row instanceof Error ? reject(row) : resolve(row)) });
      }),
  } as unknown as Statement;
  const db = { dialect: 'postgres', prepareText: () => statement } as unknown as Database;
  return { db, calls };
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const lockTimeout = (): Error => Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });

describe('the barrier of one instance', () => {
  it('runs one at a time; the readers that came while one ran share the next, which starts once it is done', async () => {
    const { db, calls } = fakeDatabase();
    const settled = new Settled(db, 0);
    const first = settled.through();
    const second = settled.through();
    const third = settled.through();
    await tick();
    expect(calls).toHaveLength(1);
    calls[0]?.answer({ settled: 5 });
    expect(await first).toBe(5);
    await tick();
    expect(calls).toHaveLength(2);
    // the next barrier is told the bound known: nothing committed past it, and it takes no lock
    expect(calls[1]?.params).toEqual([5]);
    calls[1]?.answer({ settled: 9 });
    expect([await second, await third]).toEqual([9, 9]);
    await tick();
    expect(calls).toHaveLength(2);
  });

  it.each([
    { given: 'a barrier that timed out on the lock (55P03)', error: lockTimeout(), want: 'the last bound known' },
    { given: 'a database that failed', error: new Error('connection lost'), want: 'the error' },
  ])('gives $want for $given, and the next reader a new barrier', async ({ error, want }) => {
    const { db, calls } = fakeDatabase();
    const settled = new Settled(db, 0);
    const before = settled.through();
    await tick();
    calls[0]?.answer({ settled: 4 });
    expect(await before).toBe(4);
    const failing = settled.through();
    await tick();
    calls[1]?.answer(error);
    if (want === 'the error') await expect(failing).rejects.toThrow('connection lost');
    else expect(await failing).toBe(4);
    expect(settled.known).toBe(4);
    const after = settled.through();
    await tick();
    expect(calls).toHaveLength(3);
    calls[2]?.answer({ settled: 6 });
    expect(await after).toBe(6);
  });

  it('starts a barrier gapMs after the one before started, at the soonest', async () => {
    const { db, calls } = fakeDatabase();
    const settled = new Settled(db, 60);
    const first = settled.through();
    await tick();
    calls[0]?.answer({ settled: 2 });
    await first;
    const begun = Date.now();
    const second = settled.through();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toHaveLength(1);
    while (calls.length < 2 && Date.now() - begun < 1_000) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(calls).toHaveLength(2);
    expect(Date.now() - begun).toBeGreaterThanOrEqual(40);
    calls[1]?.answer({ settled: 3 });
    expect(await second).toBe(3);
  });

  it('never goes back: a bound smaller than one known is not taken', async () => {
    const { db, calls } = fakeDatabase();
    const settled = new Settled(db, 0);
    const one = settled.through();
    await tick();
    calls[0]?.answer({ settled: 8 });
    await one;
    const two = settled.through();
    await tick();
    calls[1]?.answer({ settled: 3 });
    expect(await two).toBe(8);
  });
});
