/**
 * `of` computed once for each pair of objects, held weakly (forgotten with either). What it returns is shared:
 * readonly. Arguments after the pair are passed the first time only: they must follow from the pair.
 */
export function oncePerPair<A extends object, B extends object, Rest extends unknown[], T>(
  of: (a: A, b: B, ...rest: Rest) => T,
): (a: A, b: B, ...rest: Rest) => T {
  const known = new WeakMap<A, WeakMap<B, T>>();
  return (a, b, ...rest) => {
    let byB = known.get(a);
    if (byB === undefined) known.set(a, (byB = new WeakMap()));
    if (!byB.has(b)) byB.set(b, of(a, b, ...rest));
    return byB.get(b) as T;
  };
}

/** `make`'s value, made the first time it is asked for, and the same value after that. */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** Whether this process plans again after this run: only then is anything kept for the next (`LastRun`). */
let anotherRun = false;

/**
 * Says that this process will plan again (`generate --watch`, commands/watch.ts): from now on what a run makes is kept
 * for the next. A single run keeps nothing: holding a project's views and texts to its end would only cost garbage
 * collection time.
 */
export function expectAnotherRun(): void {
  anotherRun = true;
}

export const anotherRunExpected = (): boolean => anotherRun;

/**
 * One value a name, remembered from the last run while the key it was made for is the same: under `generate --watch`
 * one process plans again on each save, and what a save did not change need not be made again. The key must say
 * everything the value is made from. Names not seen in a run are forgotten after it (`keep`): what is held is no larger
 * than the project. The values are shared between runs: nothing may change them. Nothing is kept unless another run
 * is expected (`expectAnotherRun`).
 */
export class LastRun<T> {
  readonly #last = new Map<string, { key: string; value: T }>();

  /** The value of `name` made for `key`: the one made last time for the same key, else made now by `make`. */
  of(name: string, key: () => string, make: () => T): T {
    if (!anotherRun) return make();
    const known = this.#last.get(name);
    const wanted = key();
    if (known?.key === wanted) return known.value;
    const value = make();
    this.#last.set(name, { key: wanted, value });
    return value;
  }

  /** Forgets every name but these. */
  keep(names: ReadonlySet<string>): void {
    for (const name of this.#last.keys()) if (!names.has(name)) this.#last.delete(name);
  }
}
