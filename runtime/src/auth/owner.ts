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
    throw notYours(owners.keys, 'create', 'name you as', 'create one for others');
  }
  return result;
}

/** Who may not give records away, as the store's replace and patch take it: null for the administrator and staff. */
export const giverOf = (scope: Scope): string | null =>
  scope.admin || scope.staff ? null : (scope.caller?.subject ?? null);

/**
 * The 403 of an update refused because it changed a record's owners so that they no longer include the caller: only
 * the administrator and staff give records away (the write's statement checks it, see the store's replace).
 */
export function gaveAway(keys: readonly string[]): Error {
  return notYours(keys, 'change', 'keep you as', 'give it to others');
}

/** The 403 of a record that would not name the caller among its owners: created for, or given to, someone else. */
function notYours(keys: readonly string[], verb: string, must: string, staffMay: string): HttpProblem {
  const staff = "only an administrator, or a role this operation's rule names";
  return forbidden(
    keys.length === 1
      ? `${staff}, may make someone else the ${keys[0]} of a record`
      : `a record you ${verb} must ${must} its ${keys.join(' or ')}: ${staff}, may ${staffMay}`,
  );
}
