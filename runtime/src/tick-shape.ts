import { AsyncResource } from 'node:async_hooks';

/**
 * One object shaped as Node's `process.nextTick` shapes its tick objects, kept for the life of the process so that V8
 * keeps that shape's hidden classes (maps). app.ts imports this module first, before anything else loads.
 *
 * Why: V8 keeps the maps an object literal moves through only while some object still uses them. When a full garbage
 * collection runs while no tick object is alive (it happens while the server's modules load), those maps die; the
 * next tick object makes new ones, and the feedback nextTick's literal keeps turns megamorphic. The stream and http
 * functions of Node that inline nextTick are then optimised to define every tick object's properties through V8's
 * runtime: some 7 ticks a request, 3–5 µs of CPU per request on the benchmark's machine (a GET item cost 33–38 µs
 * instead of 28). Whether a process was hit depended on when its startup collections fell.
 *
 * The kept object takes the same keys in the same order with values of the same kinds, so its map is the tick
 * objects' own and holds the whole chain alive. The two keys are Node's own symbols, read off an AsyncResource (a
 * stable API whose instances carry the same two). Should a later Node shape its tick objects otherwise, the object
 * merely stops helping: nothing reads it.
 */
export const tickShape: object | undefined = keepTickShape();

export function keepTickShape(): object | undefined {
  const resource = new AsyncResource('restsmith.tick-shape');
  const symbols = Object.getOwnPropertySymbols(resource);
  const asyncId = symbols.find((symbol) => symbol.description === 'async_id_symbol');
  const triggerAsyncId = symbols.find((symbol) => symbol.description === 'trigger_async_id_symbol');
  if (asyncId === undefined || triggerAsyncId === undefined) return undefined;
  return {
    [asyncId]: resource.asyncId(),
    [triggerAsyncId]: resource.triggerAsyncId(),
    callback: keepTickShape,
    args: undefined,
  };
}
