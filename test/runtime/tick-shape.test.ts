import { executionAsyncResource } from 'node:async_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { keptTickObject } from '../../runtime/src/tick-shape.js';

// V8's own view of an object's hidden class, and a full garbage collection, for this test only
v8.setFlagsFromString('--allow-natives-syntax');
v8.setFlagsFromString('--expose-gc');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const collect = vm.runInNewContext('gc') as () => void;

/** The object `process.nextTick` makes for one call, as its callback sees it. */
const nextTickObject = (): Promise<object> =>
  new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));

describe('the kept tick object', () => {
  it('is one of the objects process.nextTick makes, of their very hidden class', async () => {
    const tick = await nextTickObject();
    const kept = keptTickObject();
    expect(kept).toBeDefined();
    expect(kept).not.toBe(tick);
    const symbols = (object: object): (string | undefined)[] =>
      Object.getOwnPropertySymbols(object).map((symbol) => symbol.description);
    expect(symbols(kept ?? {})).toContain('async_id_symbol');
    expect(symbols(kept ?? {})).toEqual(symbols(tick));
    expect(haveSameMap(kept ?? {}, tick)).toBe(true);
  });

  it('keeps that class through full collections made while no other tick object is alive', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    collect();
    expect(haveSameMap(keptTickObject() ?? {}, await nextTickObject())).toBe(true);
  });
});
