/** Semantic checks of access rules: known roles, and `owner` only where there is an owner to compare. */
import { OPERATIONS } from '../model.js';
import type { CheckContext } from './check-context.js';
import { didYouMean } from './did-you-mean.js';
import type { PathSeg } from './positions.js';
import type { SalvagedResource } from './salvage.js';
import { splitAccess, type AccessRuleDef } from './schema.js';

const KEYWORDS = ['public', 'authenticated', 'owner'] as const;
const AUTH_DEFAULT: PathSeg[] = ['auth', 'default'];

/** Where a rule applies: an operation, or an item or collection action, of one resource. */
export interface RuleSite {
  resource: SalvagedResource;
  /** the rule as written there, if any (else auth.default applies) */
  own: AccessRuleDef | undefined;
  ownPath: PathSeg[];
  /** `collection action "import"`: for messages */
  what: string;
  /** false for a collection action, which has no record to own */
  hasRecord: boolean;
}

const termsOf = (rule: AccessRuleDef): readonly string[] => (typeof rule === 'string' ? [rule] : rule);
const termPath = (rule: AccessRuleDef, path: PathSeg[], i: number): PathSeg[] =>
  typeof rule === 'string' ? path : [...path, i];

/** auth: the admin role is a declared role, no role is named like a rule keyword, auth.default is sound. */
export function checkAuth(ctx: CheckContext): void {
  const { adminRole, roles, rolesDeclared, authDefault } = ctx.definition;
  const keyword = (role: string): boolean => (KEYWORDS as readonly string[]).includes(role);
  if (adminRole !== undefined && keyword(adminRole)) {
    ctx.report(['auth', 'adminRole'], `"${adminRole}" is an access rule keyword, not a role`);
  }
  if (rolesDeclared && roles !== undefined) {
    roles.forEach((role, i) => {
      if (keyword(role)) ctx.report(['auth', 'roles', i], `"${role}" is an access rule keyword, not a role`);
    });
    if (adminRole !== undefined && !roles.includes(adminRole)) {
      ctx.report(['auth', 'roles'], `the admin role "${adminRole}" must be one of the roles`);
    }
  }
  if (authDefault !== undefined) checkTerms(ctx, authDefault, AUTH_DEFAULT, undefined);
}

/** Every operation of a resource, switched on or given a rule. */
export function operationSites(resource: SalvagedResource): RuleSite[] {
  return OPERATIONS.filter((op) => resource.operations.includes(op) || resource.access[op] !== undefined).map((op) => {
    const entry = resource.access[op];
    const { rule } = splitAccess(entry);
    const path: PathSeg[] = ['resources', resource.name, 'access', op];
    return {
      resource,
      own: rule,
      ownPath: rule === entry ? path : [...path, 'access'],
      what: `operation ${op}`,
      hasRecord: true,
    };
  });
}

/** Checks the rule that applies at a site: its own, or auth.default when it has none. */
export function checkSite(ctx: CheckContext, site: RuleSite): void {
  if (site.own !== undefined) {
    checkTerms(ctx, site.own, site.ownPath, ownerProblemAt(site));
    return;
  }
  const fallback = ctx.definition.authDefault;
  const i = fallback === undefined ? -1 : termsOf(fallback).indexOf('owner');
  if (fallback === undefined || i < 0) return;
  const name = site.resource.name;
  const message = !site.hasRecord
    ? `${site.what} of "${name}" relies on this default, but rule "owner" does not apply to it: there is no record to own`
    : !site.resource.ownerDeclared
      ? `resource "${name}" relies on this default, but rule "owner" needs it to declare its owner field (owner: <field>)`
      : undefined;
  if (message !== undefined) ctx.report(termPath(fallback, AUTH_DEFAULT, i), message);
}

/** Why `owner` cannot appear in the rule written at a site, if it cannot. */
function ownerProblemAt(site: RuleSite): string | undefined {
  const name = site.resource.name;
  if (!site.hasRecord) return `rule "owner" does not apply to ${site.what} of "${name}": there is no record to own`;
  if (!site.resource.ownerDeclared) {
    return `rule "owner" needs resource "${name}" to declare its owner field (owner: <field>)`;
  }
  return undefined;
}

function checkTerms(ctx: CheckContext, rule: AccessRuleDef, path: PathSeg[], ownerProblem: string | undefined): void {
  termsOf(rule).forEach((term, i) => {
    const at = termPath(rule, path, i);
    if (term === 'owner') {
      if (ownerProblem !== undefined) ctx.report(at, ownerProblem);
    } else if (term !== 'public' && term !== 'authenticated') {
      checkRole(ctx, term, at);
    }
  });
}

function checkRole(ctx: CheckContext, role: string, path: PathSeg[]): void {
  const { roles, adminRole, rolesDeclared } = ctx.definition;
  if (roles === undefined || role === adminRole || roles.includes(role)) return;
  const hint =
    didYouMean(role, [...roles, ...KEYWORDS]) ||
    (rolesDeclared ? ' (add it to auth.roles)' : ' (declare it in auth.roles)');
  ctx.report(path, `unknown role "${role}"${hint}`);
}
