import { badRequest, type HttpProblem } from '../http/problem.js';
import type { RelationMap } from './embed.js';

/**
 * The budget for embedding (`limits.include.maxRecords`): a request whose `limit` and `include` paths could embed
 * more records than that is a 400, before any query runs, so that a response never holds more. Each level of an
 * include multiplies: a to-one hop embeds one record per record above it, a to-many (or many-to-many) hop a page of
 * `pageSize` records per record above it.
 */

/** Include paths as a tree: `author,books.tags,books.author` → author; books → (tags, author). */
export type IncludeTree = Map<string, IncludeTree>;

export function treeOf(paths: readonly string[]): IncludeTree {
  const root: IncludeTree = new Map();
  for (const path of paths) {
    let node = root;
    for (const name of path.split('.')) {
      let next = node.get(name);
      if (next === undefined) {
        next = new Map();
        node.set(name, next);
      }
      node = next;
    }
  }
  return root;
}

/**
 * The most records `paths` could embed in `top` records of `resource` (a listing's `limit`, 1 for a read): the sum
 * over every relation the paths name, a shared prefix once (it is fetched once), of the records above it times 1
 * (to-one) or `pageSize` (to-many). The top records themselves are not counted: they are the page, not embedded.
 */
export function mostEmbedded(
  relations: RelationMap,
  resource: string,
  paths: readonly string[],
  top: number,
  pageSize: number,
): number {
  return below(relations, resource, treeOf(paths), top, pageSize);
}

function below(
  relations: RelationMap,
  resource: string,
  tree: IncludeTree,
  above: number,
  pageSize: number,
): number {
  let sum = 0;
  for (const [name, deeper] of tree) {
    const link = relations[resource]?.[name];
    if (link === undefined) throw new Error(`no relation ${resource}.${name}`);
    const records = above * (link.kind === 'one' ? 1 : pageSize);
    sum += records + below(relations, link.target, deeper, records, pageSize);
  }
  return sum;
}

const count = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

/** The 400 of an include over the budget: what it could embed, and the budget, both named. */
export function overBudget(most: number, maxRecords: number): HttpProblem {
  const message =
    `would embed up to ${count(most)} records; limits.include.maxRecords is ${count(maxRecords)}: ` +
    'ask for a smaller limit, or fewer or shallower include paths';
  return badRequest(`include ${message}`, [{ path: '/include', message }]);
}
