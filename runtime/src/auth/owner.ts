import { badRequest, type FieldError, type HttpProblem } from '../http/problem.js';
import { forbidden, type Scope } from './authorize.js';

/** The owner fields a client writes, in the definition's order, and those of them every record must have. */
export interface OwnerFields<K extends string> {
  keys: readonly K[];
  required: readonly K[];
}

/**
 * The owner fields of a create's body. When the caller is none of the owners sent, the first owner field left out
 * takes the caller — unless the caller acts for others (the administrator, or staff: admitted by a role the rule
 * names) and named some owner: a receptionist who sends `patientId` does not become the doctor. A caller who is not
 * the administrator or staff must be one of the record's owners: they cannot create a record for someone else.
 */
export function withOwners<T extends object, K extends keyof T & string>(
  input: T,
  owners: OwnerFields<K>,
  /** the caller's subject as a value of the owner fields; undefined without a caller */
  subject: T[K] | undefined,
  scope: Scope,
): T {
  const actsForOthers = scope.admin || scope.staff;
  const sent = owners.keys.filter((key) => input[key] !== undefined);
  let result = input;
  if (
    subject !== undefined &&
    !sent.some((key) => input[key] === subject) &&
    !(actsForOthers && sent.length > 0)
  ) {
    const free = owners.keys.find((key) => input[key] === undefined);
    if (free !== undefined) result = { ...input, [free]: subject };
  }
  const missing: FieldError[] = owners.required
    .filter((key) => result[key] === undefined)
    .map((key) => ({ path: `/${key}`, message: 'is required' }));
  if (missing.length > 0) throw badRequest('the body is not valid', missing);
  if (!actsForOthers && !owners.keys.some((key) => result[key] === subject)) {
    throw notYours(owners.keys);
  }
  return result;
}

/**
 * Who may not give records away, as the store's replace, patch and owner-setting actions take it: null for the
 * administrator and staff, else the caller, whose write must then keep every owner field as it is.
 */
export const giverOf = (scope: Scope): string | null =>
  scope.admin || scope.staff ? null : (scope.caller?.subject ?? '');

/** The owner fields a PUT or PATCH must keep as they are for this caller: none for the administrator and staff. */
export const ownersKept = (scope: Scope, keys: readonly string[]): readonly string[] =>
  giverOf(scope) === null ? [] : keys;

/**
 * The 403 of a write refused because it changed owner fields (to values other than those stored) for a caller
 * admitted only as an owner or by `authenticated`: only the administrator and staff change who owns a record (the
 * write's statement checks it, see the store's replace).
 */
export function gaveAway(keys: readonly string[]): Error {
  return forbidden(
    `only an administrator, or a role this operation's rule names, may change the ${keys.join(' or ')} of a record`,
  );
}

/** The 403 of a create that would not name the caller among the record's owners: one made for someone else. */
function notYours(keys: readonly string[]): HttpProblem {
  const staff = "only an administrator, or a role this operation's rule names";
  return forbidden(
    keys.length === 1
      ? `${staff}, may make someone else the ${keys[0]} of a record`
      : `a record you create must name you as its ${keys.join(' or ')}: ${staff}, may create one for others`,
  );
}
