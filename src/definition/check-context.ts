/** What every semantic check receives: the salvaged definition and a place to report problems. */
import type { IdKind } from '../model.js';
import { words } from '../naming.js';
import type { Anchor, Located, PathSeg } from './positions.js';
import type { Salvaged } from './salvage.js';

export class CheckContext {
  readonly problems: Located[] = [];

  constructor(readonly definition: Salvaged) {}

  report(path: PathSeg[], message: string, anchor?: Anchor): void {
    this.problems.push({ path, message, anchor });
  }

  /** The id kind of a resource, when it exists. */
  idKindOf(resource: string): IdKind | undefined {
    return this.definition.resources.find((r) => r.name === resource)?.id;
  }
}

/**
 * Two names collide when they are the same once case and separators are ignored: `authorId`,
 * `authorID` and `author-id` would all become `author_id` or differ only in case in generated code.
 */
export function collisionKey(name: string): string {
  return words(name).join('');
}

/**
 * Reports every name that collides with an earlier one: two names collide when they share any of the
 * keys `keysOf` gives them. `describe` explains why.
 */
export function reportCollisions(
  ctx: CheckContext,
  names: readonly string[],
  pathOf: (name: string) => PathSeg[],
  describe: (name: string, earlier: string) => string,
  keysOf: (name: string) => string[] = (name) => [collisionKey(name)],
): void {
  const seen = new Map<string, string>();
  for (const name of names) {
    const keys = keysOf(name);
    const earlier = keys.map((key) => seen.get(key)).find((n) => n !== undefined);
    if (earlier !== undefined) ctx.report(pathOf(name), describe(name, earlier), 'key');
    for (const key of keys) if (!seen.has(key)) seen.set(key, name);
  }
}
