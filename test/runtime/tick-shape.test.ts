import { createHook } from 'node:async_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { keepTickShape, tickShape } from '../../runtime/src/tick-shape.js';

// V8's own view of an object's hidden class, and a full garbage collection, for this test only
v8.setFlagsFromString('--allow-natives-syntax');
v8.setFlagsFromString('--expose-gc');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const collect = vm.runInNewContext('gc') as () => void;

/** The object `process.nextTick` makes for one call, caught by an async hook. */
function nextTickObject(): object {
  let caught: object | undefined;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject') caught ??= resource as object;
    },
  }).enable();
  process.nextTick(() => undefined);
  hook.disable();
  if (caught === undefined) throw new Error('process.nextTick made no tick object');
  return caught;
}

describe('the kept tick shape', () => {
  it("has the very hidden class of Node's tick objects", () => {
    expect(tickShape).toBeDefined();
    expect(haveSameMap(tickShape ?? {}, nextTickObject())).toBe(true);
  });

  it('keeps that class through full collections made while no tick object is alive', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    collect();
    expect(haveSameMap(tickShape ?? {}, nextTickObject())).toBe(true);
  });

  it("is keyed by Node's own two symbols", () => {
    const shape = keepTickShape() ?? {};
    const keys = Object.getOwnPropertySymbols(shape).map((symbol) => symbol.description);
    expect(keys).toEqual(['async_id_symbol', 'trigger_async_id_symbol']);
    expect(Object.keys(shape)).toEqual(['callback', 'args']);
  });
});
