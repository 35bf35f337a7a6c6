import type { AccessRule, Api, Relation, Resource } from '../model.js';
import { callersOf, verdict } from './access-matrix.js';
import { joinOf, linkRelations, nestedCreates, nestedRelations, targetOf } from './relations.js';

/**
 * The access matrix of a resource's relation routes (SPEC §5, §8), derived the way the generated server decides (see
 * the generated resources/<name>/nested.ts): a route's guard is the other resource's rule (the listing's `list`, the
 * create's `create`, a link's join `create` or `delete`) — 401 or 403 before anything else; then the record of the
 * path must be one the caller may read by its own `read` rule, else 404 (an owner-only reader reads only their own:
 * the `owner` caller is the owner of that record). The callers are the resource's own (see callersOf).
 */

/** What a caller sees of a resource's records by a rule: all of them, their own, or none. */
export type Sight = 'all' | 'own' | 'none';

export function sight(rule: AccessRule, caller: string, adminRole: string): Sight {
  const v = verdict(rule, caller, adminRole);
  return v === 'every' || v === 'authenticated' ? 'all' : v === 'own' ? 'own' : 'none';
}

export interface RelationRow {
  /** `list` and `create` under the record; `link` and `unlink` (PUT and DELETE) of a many-to-many relation */
  what: 'list' | 'create' | 'link' | 'unlink';
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** per caller: the status, null where it depends on more than the rules (see nestedCreateStatus) */
  statuses: Record<string, number | null>;
}

/** Whether the caller may read the record of the path (the `owner` caller owns it). */
function readsParent(api: Api, resource: Resource, caller: string): boolean {
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
 * A nested create's status past the guard and the record of the path: the target's body refers (besides the path's
 * record) to records made by the administrator, which a caller must be able to read (else 409); a caller who is not
 * staff may not name another as the owner (403). Null (not checked) where the owner is the record's own id or the
 * ref of the path, or where both would apply.
 */
function nestedCreateStatus(api: Api, relation: Relation, target: Resource, refs: readonly string[], caller: string) {
  const v = verdict(target.access.create, caller, api.auth.adminRole);
  const owner = target.owners[0];
  if (owner === relation.field || (owner === 'id' && v === 'own')) return null;
  const staff = v === 'every';
  const ownerGiven = owner !== undefined && refs.includes(owner);
  const readsRefs = refs
    .filter((field) => field !== relation.field)
    .every((field) => {
      const to = target.fields.find((f) => f.name === field)?.ref?.to;
      const read = api.resources.find((r) => r.name === to)?.access.read;
      return read !== undefined && sight(read, caller, api.auth.adminRole) === 'all';
    });
  if (ownerGiven && !staff) return readsRefs ? 403 : null;
  return readsRefs ? 201 : 409;
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
        guarded(api, resource, target.access.create, c, nestedCreateStatus(api, relation, target, refs, c)),
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
          const owner = join.owners[0];
          const ownerIsRef = join.fields.some((f) => f.name === owner && f.ref !== undefined);
          return status === 204 && ownerIsRef && verdict(join.access.create, c, api.auth.adminRole) !== 'every'
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
          // the link is the administrator's: a caller who deletes only their own links finds none (404)
          return status === 204 && sight(join.access.delete, c, api.auth.adminRole) !== 'all' ? 404 : status;
        }),
      });
  }
  return rows;
}
