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
