/** Blocks this thread for `ms`: a statement, or any work, that holds the event loop. */
export function block(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy
  }
}

/**
 * Holds the event loop in steps of 200 ms, `steps` of them (letting timers run between two), then waits 50 ms: with
 * the default 12 it is blocked for most of two of @fastify/under-pressure's sampling seconds, so its mean delay is
 * over 50 ms when http/pressure.ts next reads it.
 */
export async function saturateEventLoop(steps = 12): Promise<void> {
  for (let i = 0; i < steps; i += 1) {
    block(200);
    await new Promise((wait) => setImmediate(wait));
  }
  await new Promise((wait) => setTimeout(wait, 50));
}
