/**
 * Rules zod cannot express because they relate several parts of a definition. They run on the parts
 * that are valid (see salvage.ts), so that they report alongside zod's problems, never instead of them.
 */
import { names, RESERVED_TYPE_NAMES, RESERVED_WORDS, typeNameOf } from '../naming.js';
import { checkAuth, checkSite, operationSites } from './access-checks.js';
import { checkActions, checkWhenFields } from './action-checks.js';
import { CheckContext, collisionKey, reportCollisions } from './check-context.js';
import { closest, didYouMean } from './did-you-mean.js';
import { checkFields } from './field-checks.js';
import type { Located, PathSeg } from './positions.js';
import { checkRelations } from './relation-checks.js';
import { checkRequiredRefCycles } from './ref-cycles.js';
import { checkUniqueKeys } from './through-checks.js';
import { salvage, type SalvagedResource } from './salvage.js';
import { RESOURCE_NAME, splitAccess } from './schema.js';

/** Collection names the generated server uses for its own routes. */
export const SERVER_ROUTES = ['healthz', 'livez', 'readyz', 'docs', 'openapi.json', 'problems'] as const;

/** Collection names the server routes itself when the definition has `events`. */
export const EVENT_ROUTES = ['events', 'webhooks'] as const;

/**
 * Table name prefixes a resource may not take: the server's own tables, and the databases' (SQLite refuses `sqlite_`
 * names; PostgreSQL finds `pg_` names in pg_catalog first).
 */
const RESERVED_TABLES = {
  restsmith: "the server's own (restsmith_migrations, restsmith_idempotency…)",
  sqlite: "SQLite's own (it refuses names that begin with sqlite_)",
  pg: "PostgreSQL's own (it finds pg_ names in pg_catalog first: pg_stats, pg_tables…)",
} as const;
const RESERVED_TABLE_PREFIXES = Object.keys(RESERVED_TABLES) as (keyof typeof RESERVED_TABLES)[];

/** Field types an `owner` field may have: they hold a token subject. */
const OWNER_TYPES: readonly string[] = ['string', 'uuid', 'ref'];

export function semanticProblems(data: unknown): Located[] {
  const ctx = new CheckContext(salvage(data));
  checkAuth(ctx);
  checkLimits(ctx);
  checkResourceNames(ctx);
  checkResourceRenames(ctx);
  for (const resource of ctx.definition.resources) checkResource(ctx, resource);
  checkRelations(ctx);
  checkRequiredRefCycles(ctx);
  return ctx.problems;
}

function checkLimits(ctx: CheckContext): void {
  const pageSize = ctx.definition.pageSize;
  if (pageSize?.default !== undefined && pageSize.max !== undefined && pageSize.default > pageSize.max) {
    ctx.report(['limits', 'pageSize', 'default'], `default (${pageSize.default}) is more than max (${pageSize.max})`);
  }
}

/** `renamedFrom` of resources: a name no current resource has, each previous name claimed once. */
function checkResourceRenames(ctx: CheckContext): void {
  const renamedBy = new Map<string, string>();
  const tableOf = (name: string): string => names(name).snake;
  for (const resource of ctx.definition.resources) {
    const from = resource.renamedFrom;
    if (from === undefined) continue;
    const at: PathSeg[] = ['resources', resource.name, 'renamedFrom'];
    const current = ctx.definition.declaredResources.find((name) => tableOf(name) === tableOf(from));
    if (from === resource.name) ctx.report(at, `"${from}" is the resource's own name`);
    else if (current !== undefined) ctx.report(at, `"${from}" is the name of a current resource ("${current}")`);
    else if (renamedBy.has(tableOf(from))) {
      ctx.report(at, `"${renamedBy.get(tableOf(from))}" is already renamed from "${from}"`);
    } else renamedBy.set(tableOf(from), resource.name);
  }
}

function checkResourceNames(ctx: CheckContext): void {
  const names = ctx.definition.declaredResources.filter((name) => RESOURCE_NAME.test(name));
  const at = (name: string): PathSeg[] => ['resources', name];
  for (const name of names) {
    if (RESERVED_WORDS.has(name)) ctx.report(at(name), `"${name}" is a reserved word`, 'key');
    if (RESERVED_TYPE_NAMES.has(typeNameOf(name))) {
      ctx.report(
        at(name),
        `"${name}" would be the type ${typeNameOf(name)}, which the generated code needs for itself: choose another name`,
        'key',
      );
    }
    if ((SERVER_ROUTES as readonly string[]).includes(name)) {
      ctx.report(at(name), `"${name}" collides with the server's own route /${name}`, 'key');
    }
    if (ctx.definition.events && (EVENT_ROUTES as readonly string[]).includes(name)) {
      ctx.report(at(name), `"${name}" collides with the route /${name} of \`events\`: choose another name`, 'key');
    }
    const owner = RESERVED_TABLE_PREFIXES.find((prefix) => name === prefix || name.startsWith(`${prefix}-`));
    if (owner !== undefined) {
      ctx.report(
        at(name),
        `"${name}" would name tables or indexes among ${RESERVED_TABLES[owner]}: choose another name`,
        'key',
      );
    }
  }
  reportCollisions(
    ctx,
    names,
    at,
    (name, earlier) =>
      typeNameOf(name) === typeNameOf(earlier)
        ? `resource "${name}" collides with resource "${earlier}" (both have the type name ${typeNameOf(name)})`
        : `resource "${name}" collides with resource "${earlier}" (they differ only in case or "-")`,
    (name) => [collisionKey(name), typeNameOf(name).toLowerCase()],
  );
}

function checkResource(ctx: CheckContext, resource: SalvagedResource): void {
  const base: PathSeg[] = ['resources', resource.name];
  checkFields(ctx, {
    kind: 'resource',
    path: [...base, 'fields'],
    declared: resource.fields.declared,
    fields: resource.fields.valid,
    owner: resource.owners[0],
    // a misspelt owner: the field it was probably meant to name
    meantOwners: resource.owners.flatMap((owner) => {
      if (owner === 'id' || resource.fields.declared.includes(owner)) return [];
      const meant = closest(owner, resource.fields.declared);
      return meant === undefined ? [] : [meant];
    }),
  });
  checkOwner(ctx, resource);
  for (const site of operationSites(resource)) checkSite(ctx, site);
  for (const op of ['update', 'delete'] as const) {
    const { when } = splitAccess(resource.access[op]);
    if (when !== undefined) checkWhenFields(ctx, resource, when, (...rest) => [...base, 'access', op, ...rest]);
  }
  checkActions(ctx, resource);
  checkUniqueKeys(ctx, resource);
}

function checkOwner(ctx: CheckContext, resource: SalvagedResource): void {
  const owners = resource.owners;
  const base: PathSeg[] = ['resources', resource.name, 'owner'];
  const kinds = new Map<string, string>();
  owners.forEach((owner, i) => {
    const path = owners.length > 1 ? [...base, i] : base;
    if (owners.indexOf(owner) !== i) {
      ctx.report(path, `"${owner}" is listed twice`);
      return;
    }
    if (owner === 'id') {
      if (owners.length > 1) ctx.report(path, 'id cannot be one of several owner fields: name fields only');
      return;
    }
    if (!resource.fields.declared.includes(owner)) {
      const hint = didYouMean(owner, [...resource.fields.declared, 'id']);
      ctx.report(path, `owner "${owner}" is not a field of "${resource.name}"${hint}`);
      return;
    }
    const field = resource.fields.valid.get(owner);
    if (field === undefined) return;
    if (field.computed === true) {
      ctx.report(path, `"${owner}" is computed: an owner field must be stored`);
      return;
    }
    if (!OWNER_TYPES.includes(field.type)) {
      ctx.report(path, `the owner field must be of type string, uuid or ref; "${owner}" is ${field.type}`);
      return;
    }
    if (field.readOnly === true && i > 0) {
      ctx.report(
        path,
        `"${owner}" is readOnly: the server sets it to the caller on create, so it must be the first owner field`,
      );
    }
    const kind = field.type === 'ref' ? (ctx.idKindOf(field.to) ?? 'uuid') : field.type;
    const other = [...kinds].find(([, k]) => (k === 'integer') !== (kind === 'integer'));
    if (other !== undefined) {
      ctx.report(
        path,
        `owner fields hold one token subject, so they must all hold the same kind of value: "${owner}" holds ` +
          `${kind === 'integer' ? 'integer ids' : 'text'}, "${other[0]}" ${other[1] === 'integer' ? 'integer ids' : 'text'}`,
      );
    }
    kinds.set(owner, kind);
  });
}
