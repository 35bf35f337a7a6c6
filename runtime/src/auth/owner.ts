import { badRequest, type FieldError } from '../http/problem.js';
import { forbidden, type Scope } from './authorize.js';

/**
 * The owner field of a body: it defaults to the caller when left out of a create (and keeps its value when left
 * out of a PUT). Only the administrator and staff — callers admitted by a role the rule names — may create a record
 * for someone else; a caller admitted only as the owner may not give a record away.
 */
export function withOwner<T extends object, K extends keyof T & string>(
  input: T,
  key: K,
  /** the caller's subject as a value of the owner field; undefined without a caller */
  subject: T[K] | undefined,
  scope: Scope,
  options: { creating: boolean; required: boolean },
): T {
  const value = input[key];
  if (value === undefined) {
    if (subject === undefined && options.creating && options.required) {
      const missing: FieldError = { path: `/${key}`, message: 'is required' };
      throw badRequest('the body is not valid', [missing]);
    }
    return options.creating && subject !== undefined ? { ...input, [key]: subject } : input;
  }
  const mayGiveAway = scope.admin || scope.staff || (!options.creating && scope.owner === null);
  if (!mayGiveAway && value !== subject) {
    throw forbidden(
      `only an administrator, or a role this operation's rule names, may make someone else the ${key} of a record`,
    );
  }
  return input;
}
