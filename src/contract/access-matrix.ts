import type { AccessRule, Action, Api, Operation, Resource, When } from '../model.js';
import { readCovers } from './access.js';

/**
 * The access matrix of a resource (SPEC §8): for every operation and action, the status each kind of caller gets,
 * derived from the definition the way the generated server decides (see the generated auth/authorize.ts):
 * - a `public` rule admits everyone, and a token that is not valid counts as none;
 * - otherwise no token, an expired token or a badly signed one is a 401;
 * - the administrator, a caller holding one of the rule's roles, or anyone with a token under `authenticated`, is
 *   admitted to every record;
 * - a caller the `owner` term alone admits is restricted to their own records: another's is a 404 (it is not theirs
 *   to know of), a listing shows only theirs, a create makes a record of theirs;
 * - anyone else is a 403.
 * An admitted write of a record outside its `when` is a 409: the generated tests check it against the record.
 */

export interface MatrixRow {
  /** `list`, `read`, `create`, `update`, `delete`, or the action's name */
  what: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** whether the request names one record (`/{id}`) */
  item: boolean;
  /** whether an admitted request changes the record (a fresh one is made for it) */
  changes: boolean;
  /** the status of an admitted request; 0 for a handler's action (whatever your handler answers) */
  admitted: number;
  /** the states an admitted write needs (else 409) */
  when: When;
  /** the status per caller: `role:<name>` keys for named roles; null where the rules alone do not tell */
  statuses: Record<string, number | null>;
  /** how the rule admits each caller: see Verdict */
  verdicts: Record<string, Verdict>;
}

/** The callers of every matrix of the API, in the order its table shows them. */
export function callersOf(api: Api, resource: Resource): string[] {
  const roles = api.auth.roles.filter((role) => role !== api.auth.adminRole).map((role) => `role:${role}`);
  return [
    'no token',
    'expired token',
    'badly signed token',
    'administrator',
    ...roles,
    'stranger',
    ...(resource.owners.length > 0 ? ['owner'] : []),
  ];
}

/**
 * How the rule treats a caller: admitted to every record as staff (the administrator, a named role, anyone under a
 * public rule), admitted to every record by `authenticated` (who may not give a record to someone else), to their own
 * records only, or refused with a status.
 */
export type Verdict = 'every' | 'authenticated' | 'own' | 401 | 403;

export function verdict(rule: AccessRule, caller: string, adminRole: string): Verdict {
  const has = (kind: string): boolean => rule.some((term) => term.kind === kind);
  if (has('public')) return 'every';
  if (caller === 'no token' || caller === 'expired token' || caller === 'badly signed token') return 401;
  if (caller === 'administrator') return 'every';
  const role = caller.startsWith('role:') ? caller.slice('role:'.length) : undefined;
  if (role !== undefined && role !== adminRole && rule.some((t) => t.kind === 'role' && t.role === role))
    return 'every';
  if (has('authenticated')) return 'authenticated';
  if (has('owner')) return 'own';
  return 403;
}

const SUCCESS: Record<Operation, number> = { list: 200, read: 200, create: 201, update: 200, delete: 204 };
const METHOD: Record<Operation, MatrixRow['method']> = {
  list: 'GET',
  read: 'GET',
  create: 'POST',
  update: 'PATCH',
  delete: 'DELETE',
};

/**
 * The status of a caller: a caller admitted to their own records only gets a 404 for another's record; the `owner`
 * caller is the record's owner, so their own is the record.
 */
function statusOf(v: Verdict, caller: string, item: boolean, admitted: number): number {
  if (v === 401 || v === 403) return v;
  if (v === 'own' && item && caller !== 'owner') return 404;
  return admitted;
}

/**
 * A write whose rule admits callers the read rule does not (readCovers) answers them a 204, with nothing of the
 * record, where a 200 would show it: `admitted` is then the status of a caller who may read the shared record (the
 * owner's) and 204 that of another.
 */
function row(
  api: Api,
  resource: Resource,
  what: string,
  rule: AccessRule,
  shape: Omit<MatrixRow, 'what' | 'statuses' | 'verdicts'>,
  /**
   * what it writes and answers, one record: an update, or a `set` action (the owner fields it sets, after which
   * the `owner` caller, the first owner field's, may no longer own the record)
   */
  writes?: { sets: readonly string[] },
): MatrixRow {
  const callers = callersOf(api, resource);
  const verdicts = callers.map((caller) => [caller, verdict(rule, caller, api.auth.adminRole)] as const);
  const read = resource.access.read;
  const givesAway = writes !== undefined && writes.sets.some((field) => resource.owners.includes(field));
  const hides = writes !== undefined && (givesAway || !readCovers(read, rule, api.auth.adminRole));
  const reads = (caller: string): boolean => {
    const seen = sight(read, caller, api.auth.adminRole);
    const owns = caller === 'owner' && !writes?.sets.includes(resource.owners[0] ?? '');
    return seen === 'all' || (seen === 'own' && owns);
  };
  const statuses = Object.fromEntries(
    verdicts.map(([caller, v]): [string, number | null] => {
      const status = statusOf(v, caller, shape.item, shape.admitted);
      // a caller who is not staff may run an action that sets owner fields only where they hold those values already
      // (else a 403): the rules alone do not tell
      if (givesAway && (v === 'authenticated' || v === 'own') && status !== 404) return [caller, null];
      if (!hides || status !== 200 || reads(caller)) return [caller, status];
      // the owner of a record an action takes from them may own it by another owner field too (the refs of the tests'
      // records name the same records): not checked here
      return [caller, caller === 'owner' && givesAway ? null : 204];
    }),
  );
  return { what, ...shape, statuses, verdicts: Object.fromEntries(verdicts) };
}

/** The rows of a resource's matrix: its operations, then its actions (a handler's action admitted answers 0). */
export function accessMatrix(api: Api, resource: Resource): MatrixRow[] {
  const operations = resource.operations.map((op) =>
    row(
      api,
      resource,
      op,
      resource.access[op],
      {
        method: METHOD[op],
        item: op === 'read' || op === 'update' || op === 'delete',
        // an update is a PATCH of nothing: it changes the version alone, and the shared record serves
        changes: op === 'delete',
        admitted: SUCCESS[op],
        when: op === 'update' || op === 'delete' ? resource.writableWhen[op] : [],
      },
      op === 'update' ? { sets: [] } : undefined,
    ),
  );
  const actions = resource.actions.map((action: Action) =>
    row(
      api,
      resource,
      action.name,
      action.access,
      {
        method: action.method === 'get' ? 'GET' : 'POST',
        item: action.on === 'item',
        changes: action.set.length > 0 || action.method === 'post',
        admitted: action.set.length > 0 ? 200 : 0,
        when: action.when,
      },
      action.set.length > 0 && action.on === 'item' ? { sets: action.set.map((s) => s.field) } : undefined,
    ),
  );
  return [...operations, ...actions];
}

/** What a caller sees of a resource's records by a rule: all of them, their own, or none. */
export type Sight = 'all' | 'own' | 'none';

export function sight(rule: AccessRule, caller: string, adminRole: string): Sight {
  const v = verdict(rule, caller, adminRole);
  return v === 'every' || v === 'authenticated' ? 'all' : v === 'own' ? 'own' : 'none';
}

/** Whether a caller acts for others under a rule (may name anyone as an owner): the administrator, or a role it names. */
function isStaff(rule: AccessRule, caller: string): boolean {
  const role = caller.startsWith('role:') ? caller.slice('role:'.length) : undefined;
  return caller === 'administrator' || rule.some((t) => t.kind === 'role' && t.role === role);
}

/**
 * The status of a create of `target` its rule admits, past the body (as the generated create decides, see
 * auth/owner.ts and relations/references.ts): who owns the record is settled first — where every owner field is
 * given (a ref to the administrator's record, or a nested create's path), a caller who is not staff is none of them,
 * a 403, unless they own the path's record by its id; then every ref must name a record the caller may read, else
 * a 409, as if it did not exist. `refs` are the ref fields the body fills with the administrator's records; `path` a
 * nested create's ref field, and whether the caller is the path's record. Null where a record is its own owner.
 */
export function createStatus(
  api: Api,
  target: Resource,
  caller: string,
  refs: readonly string[],
  path?: { field: string; owned: boolean },
): number | null {
  const rule = target.access.create;
  const v = verdict(rule, caller, api.auth.adminRole);
  if (v === 401 || v === 403) return v;
  if (target.owners.includes('id') && v === 'own') return null;
  const given = (field: string) => refs.includes(field) || field === path?.field;
  if (target.owners.length > 0 && target.owners.every(given) && !isStaff(rule, caller)) {
    const ownsPath = path !== undefined && path.owned && target.owners.includes(path.field);
    if (!ownsPath) return 403;
  }
  const readsRefs = refs
    .filter((field) => field !== path?.field)
    .every((field) => {
      const to = target.fields.find((f) => f.name === field)?.ref?.to;
      const read = api.resources.find((r) => r.name === to)?.access.read;
      return read !== undefined && sight(read, caller, api.auth.adminRole) === 'all';
    });
  return readsRefs ? 201 : 409;
}
