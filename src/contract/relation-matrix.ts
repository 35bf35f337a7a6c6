import type { AccessRule, Api, Relation, Resource } from '../model.js';
import { callersOf, createStatus, sight, verdict } from './access-matrix.js';
import { joinOf, linkRelations, nestedCreates, nestedRelations, targetOf } from './relations.js';

/**
 * The access matrix of a resource's relation routes (SPEC §5, §8), derived the way the generated server decides (see
 * the generated resources/<name>/nested.ts): a route's guard is the other resource's rule (the listing's `list`, the
 * create's `create`, a link's join `create` or `delete`) — 401 or 403 before anything else; then the record of the
 * path must be one the caller may read by its own `read` rule, else 404 (an owner-only reader reads only their own:
 * the `owner` caller is the owner of that record). The callers are the resource's own (see callersOf).
 */

export interface RelationRow {
  /** `list` and `create` under the record; `link` and `unlink` (PUT and DELETE) of a many-to-many relation */
  what: 'list' | 'create' | 'link' | 'unlink';
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** per caller: the status, null where it depends on more than the rules (see createStatus and the link rows) */
  statuses: Record<string, number | null>;
}

/** Whether a join's owner is one of its sides' refs: a link is then owned by the record it names, not its maker. */
export const ownedThroughRef = (join: Resource): boolean =>
  join.owners.some((owner) => join.fields.some((f) => f.name === owner && f.ref !== undefined));

/** Whether the caller may read the record of the path (the `owner` caller owns it). */
export function readsParent(api: Api, resource: Resource, caller: string): boolean {
  const s = sight(resource.access.read, caller, api.auth.adminRole);
  return s === 'all' || (s === 'own' && caller === 'owner');
}

/** The guard's refusal (401, 403) of a rule, else the status past the record of the path. */
function guarded(api: Api, resource: Resource, rule: AccessRule, caller: string, admitted: number | null) {
  const v = verdict(rule, caller, api.auth.adminRole);
  if (v === 401 || v === 403) return v;
  return readsParent(api, resource, caller) ? admitted : 404;
}

/**
 * The rows of one relation of `resource`: the nested listing and create of a to-many relation, the link and unlink of
 * a many-to-many one — those the definition serves. `refs` are the target's ref fields a test's body fills in.
 */
export function relationMatrix(
  api: Api,
  resource: Resource,
  relation: Relation,
  refs: readonly string[] = [],
): RelationRow[] {
  const callers = callersOf(api, resource);
  const target = targetOf(api, relation);
  const by = (status: (caller: string) => number | null) =>
    Object.fromEntries(callers.map((caller) => [caller, status(caller)]));
  const rows: RelationRow[] = [];
  if (nestedRelations(api, resource).includes(relation))
    rows.push({ what: 'list', method: 'GET', statuses: by((c) => guarded(api, resource, target.access.list, c, 200)) });
  if (nestedCreates(api, resource).includes(relation))
    rows.push({
      what: 'create',
      method: 'POST',
      statuses: by((c) =>
        guarded(
          api,
          resource,
          target.access.create,
          c,
          // the `owner` caller owns the path's record: by its id, where it is its own owner
          createStatus(api, target, c, refs, {
            field: relation.field,
            owned: c === 'owner' && resource.owners.includes('id'),
          }),
        ),
      ),
    });
  const link = linkRelations(api, resource).find((l) => l.relation === relation);
  const join = joinOf(api, relation);
  if (link !== undefined && join !== undefined) {
    // both ends must be readable: the other end is a record of the administrator's
    const ends = (c: string, rule: AccessRule, admitted: number) => {
      const status = guarded(api, resource, rule, c, admitted);
      return status === admitted && sight(target.access.read, c, api.auth.adminRole) !== 'all' ? 404 : status;
    };
    if (link.put)
      rows.push({
        what: 'link',
        method: 'PUT',
        statuses: by((c) => {
          const status = ends(c, join.access.create, 204);
          // a join owned through one of its sides' refs names that record as the owner: not checked here
          return status === 204 &&
            ownedThroughRef(join) &&
            verdict(join.access.create, c, api.auth.adminRole) !== 'every'
            ? null
            : status;
        }),
      });
    if (link.delete)
      rows.push({
        what: 'unlink',
        method: 'DELETE',
        statuses: by((c) => {
          const status = ends(c, join.access.delete, 204);
          // the link is the administrator's: a caller who deletes only their own links finds none (404) — unless a
          // link is owned by a record it names (not checked here)
          if (status !== 204 || sight(join.access.delete, c, api.auth.adminRole) === 'all') return status;
          return ownedThroughRef(join) ? null : 404;
        }),
      });
  }
  return rows;
}
