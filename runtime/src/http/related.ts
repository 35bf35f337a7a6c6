import type { SqlValue } from '../db/database.js';
import { ownerParams, type Hop, type ListColumn, type OwnerColumns } from '../db/list-sql.js';

/**
 * Filters through relations (`?author.country=FR`, `?tags.name=sci-fi`): each is the condition on a related table's
 * column, reached by hops `local IN (SELECT remote FROM table …)`, each hop restricted to the rows the caller may
 * read by that resource's own `read` rule (see relations/embed.ts for the rules, db/list-sql.ts for the SQL).
 */

/**
 * A relation a listing filters through: the hops to the related table (the last), the related resource's columns,
 * and the resources whose `read` rules decide which related rows a filter may look at (the target; the join of a
 * many-to-many relation, whose rows are the first hop's).
 */
export interface RelationFilterSpec {
  target: string;
  join?: string;
  via: readonly Omit<Hop, 'owner'>[];
  columns: Record<string, ListColumn>;
}

/**
 * The rows of `resource` a caller may look at through a relation, by its `read` rule (see relations/embed.ts):
 * false, none; null, every row; else those whose owner column holds `scope`.
 */
export type RelatedScopes = (resource: string) => { scope: false | null | SqlValue; owner?: OwnerColumns };

/** The hops of a filter through `relation`, each scoped by its read rule; null when one is closed to the caller. */
export function hopsThrough(
  relation: RelationFilterSpec,
  related: RelatedScopes,
): { via: Hop[]; owners: SqlValue[] } | null {
  const last = relation.via.length - 1;
  const via: Hop[] = [];
  const owners: SqlValue[] = [];
  for (const [i, hop] of relation.via.entries()) {
    // the join's rows are the first hop's (many-to-many), the target's the last hop's
    const resource = i === last ? relation.target : relation.join;
    const { scope, owner } = resource === undefined ? { scope: null } : related(resource);
    if (scope === false) return null;
    if (scope !== null && owner !== undefined) {
      via.push({ ...hop, owner });
      owners.unshift(...ownerParams(owner, scope)); // the owners' parameters come from the last hop out
    } else via.push(hop);
  }
  return { via, owners };
}
