import type { AccessRule, AccessTerm, Action, Api, JsonValue, Operation, Resource, When } from '../model.js';

/** Whether a rule admits anyone, token or not. */
export const isPublic = (rule: AccessRule): boolean => rule.some((term) => term.kind === 'public');

/** An access rule as the generated `AccessRule` object literal (see the generated auth/authorize.ts). */
export function ruleObject(rule: AccessRule): Record<string, unknown> {
  const roles = rule.flatMap((term) => (term.kind === 'role' ? [term.role] : []));
  return {
    ...(isPublic(rule) && { public: true }),
    ...(rule.some((t) => t.kind === 'authenticated') && { authenticated: true }),
    ...(roles.length > 0 && { roles }),
    ...(rule.some((t) => t.kind === 'owner') && { owner: true }),
  };
}

/** Every rule of a resource, operations and actions alike, keyed as the routes name them. */
export function accessRules(resource: Resource): { key: string; rule: Record<string, unknown> }[] {
  return [
    ...resource.operations.map((op) => ({ key: op, rule: ruleObject(resource.access[op]) })),
    // who reads its records where others embed them, filter through them or the feed shows them: with the read
    // operation switched off too
    ...(resource.operations.includes('read') ? [] : [{ key: 'read', rule: ruleObject(resource.access.read) }]),
    ...resource.actions.map((a) => ({ key: a.names.camel, rule: ruleObject(a.access) })),
  ];
}

/**
 * Whether every caller `write` admits to a record may read it by `read` (the administrator, `adminRole`, passes both): a term of
 * `write` is in `read` too, or `read` is public, or authenticated and `write` not public. Where it is not so, a
 * write's reply shows nothing of a record its caller may not read (a 204; a 409 without the record's state).
 */
export function readCovers(read: AccessRule, write: AccessRule, adminRole?: string): boolean {
  const has = (rule: AccessRule, term: AccessTerm): boolean =>
    rule.some((t) => t.kind === term.kind && (t.kind !== 'role' || term.kind !== 'role' || t.role === term.role));
  if (has(read, { kind: 'public' })) return true;
  if (has(write, { kind: 'public' })) return false;
  const admin = (term: AccessTerm): boolean => term.kind === 'role' && term.role === adminRole;
  return has(read, { kind: 'authenticated' }) || write.every((term) => admin(term) || has(read, term));
}

/**
 * Whether a `set` action's reply must be checked against the read rule: its rule admits callers the read rule does
 * not, or it sets an owner field (an owner may give the record away: they may no longer read what they wrote).
 */
export const actionHides = (resource: Resource, action: Action, adminRole: string): boolean =>
  !readCovers(resource.access.read, action.access, adminRole) ||
  action.set.some((s) => resource.owners.includes(s.field));

/** Whether any rule of the API needs a token, so that the server refuses to start without a way to verify one. */
export function needsTokens(api: Api): boolean {
  return api.resources.some(
    (r) => r.operations.some((op) => !isPublic(r.access[op])) || r.actions.some((a) => !isPublic(a.access)),
  );
}

/** A rule as the generated README shows it: `admin, owner`. */
export function ruleText(rule: AccessRule): string {
  return rule.map((term) => (term.kind === 'role' ? term.role : term.kind)).join(', ');
}

/** The states a `when` allows: `status is "booked" or "waiting" and paid is true`. */
export const statesOf = (when: When): string =>
  when.map((w) => `${w.field} is ${w.values.map((v) => JSON.stringify(v)).join(' or ')}`).join(' and ');

/** Whether `value` is one of the values a condition of a `when` allows (JSON values, compared as JSON). */
export const allows = (condition: When[number], value: JsonValue | undefined): boolean =>
  value !== undefined && condition.values.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value));

/** `; only while status is "booked"` where an update or delete rule carries a `when`. */
function statesText(resource: Resource, op: Operation): string {
  const when = op === 'update' || op === 'delete' ? resource.writableWhen[op] : [];
  return when.length === 0 ? '' : `; only while ${statesOf(when)} (else 409)`;
}

/** Who may do what, for the generated README: one row per operation and action. */
export function accessSummary(resource: Resource): { what: string; who: string }[] {
  return [
    ...resource.operations.map((op) => ({ what: op, who: ruleText(resource.access[op]) + statesText(resource, op) })),
    ...resource.actions.map((a) => ({ what: `${a.name} (action)`, who: ruleText(a.access) })),
  ];
}
