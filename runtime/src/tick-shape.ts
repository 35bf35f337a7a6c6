import { executionAsyncResource } from 'node:async_hooks';

/**
 * One of Node's own `process.nextTick` tick objects, kept for the life of the process so that V8 keeps the hidden
 * classes (maps) of their shape. app.ts imports this module first, before the modules it imports run.
 *
 * Why: V8 keeps the maps an object literal moves through only while some object still uses them. When a full garbage
 * collection runs while no tick object is alive (it happens while the server's modules load), those maps die; the
 * next tick object makes new ones, and the feedback nextTick's literal keeps turns megamorphic. The stream and http
 * functions of Node that inline nextTick are then optimised to define every tick object's properties through V8's
 * runtime: some 7 ticks a request, 3–5 µs of CPU per request on the benchmark's machine (a GET item cost 33–38 µs
 * instead of 28). Whether a process was hit depended on when its startup collections fell.
 *
 * The object is the one Node made for the tick below, as its callback runs: `executionAsyncResource()` is then that
 * tick object (no async hook is enabled for it), so it has their shape whatever the version of Node; until then the
 * queue holds it. Nothing reads it.
 */
let kept: object | undefined;
process.nextTick(() => {
  kept = executionAsyncResource();
});

/** The tick object kept (undefined until the tick above has run). */
export function keptTickObject(): object | undefined {
  return kept;
}
