/**
 * Semantic checks of relations (§5): every ref field makes a to-one relation on its resource, named by `as` or by the
 * field without its Id suffix, and a to-many one on the resource it refers to, named by `inverse` or by the referring
 * collection. A relation's name is a key of the records that embed it and a segment of nested paths: it must not
 * collide with a field, an action or another relation of the resource it is on.
 */
import { SYSTEM_FIELDS, names, relationNameOf, typeNameOf } from '../naming.js';
import { CheckContext, collisionKey } from './check-context.js';
import { FIELD_NAME } from './field-schema.js';
import type { PathSeg } from './positions.js';
import type { SalvagedResource } from './salvage.js';
import { checkThrough } from './through-checks.js';

/** A relation, as made by one ref field. */
interface RelationSite {
  /** `through`: a many-to-many relation (`relations:`), or its inverse on the other side */
  kind: 'one' | 'many' | 'through';
  name: string;
  /** the resource the relation is on: the one holding the field (`one`), or the one it refers to (`many`) */
  on: string;
  /** the resource holding the ref field, and the field */
  holder: string;
  field: string;
  /** where its name is written: the `as` or `inverse` key when given, else the field's key */
  path: PathSeg[];
  /** another name, to suggest for an inverse (`editorId` of books → `editorBooks`) */
  example: string;
}

/** A name a relation may not take: a system field, a field or an action of the resource the relation is on. */
interface Taken {
  kind: 'system' | 'field' | 'action';
  name: string;
}

type Other = Taken | RelationSite;

export function checkRelations(ctx: CheckContext): void {
  const resources = new Map(ctx.definition.resources.map((r) => [r.name, r]));
  const ones = new Map<string, RelationSite[]>();
  const manys = new Map<string, RelationSite[]>();
  const add = (into: Map<string, RelationSite[]>, site: RelationSite): void => {
    into.set(site.on, [...(into.get(site.on) ?? []), site]);
  };
  for (const holder of resources.values()) {
    for (const [field, ref] of holder.refs) {
      if (!FIELD_NAME.test(field)) continue; // a bad name is reported by the schema
      const fieldPath: PathSeg[] = ['resources', holder.name, 'fields', field];
      const derived = relationNameOf(field);
      const needsAs = !ref.asWritten && derived === field;
      if (needsAs) ctx.report(fieldPath, needsAsMessage(field, ref.to), 'key');
      // an unknown target is reported by the field checks; an invalid `as` or `inverse` by the schema
      if (!resources.has(ref.to)) continue;
      const one = ref.asWritten ? ref.as : needsAs ? undefined : derived;
      const example = names(`${one ?? field.replace(/ID$/, '')}-${holder.name}`).camel;
      const site = (
        kind: RelationSite['kind'],
        name: string,
        key: 'as' | 'inverse',
        written: boolean,
      ): RelationSite => ({
        kind,
        name,
        on: kind === 'one' ? holder.name : ref.to,
        holder: holder.name,
        field,
        path: written ? [...fieldPath, key] : fieldPath,
        example,
      });
      if (one !== undefined) add(ones, site('one', one, 'as', ref.asWritten));
      const many = ref.inverseWritten ? ref.inverse : names(holder.name).camel;
      if (many !== undefined) add(manys, site('many', many, 'inverse', ref.inverseWritten));
    }
  }
  const throughs = new Map<string, RelationSite[]>();
  for (const t of checkThrough(ctx, resources)) {
    const common = { kind: 'through' as const, holder: t.on, example: `${t.inverse}Of${t.on}` };
    add(throughs, { ...common, name: t.name, on: t.on, field: t.name, path: t.path });
    add(throughs, { ...common, name: t.inverse, on: t.other, field: `${t.name}'s inverse`, path: t.inversePath });
  }
  for (const resource of resources.values()) {
    const relations = [
      ...(ones.get(resource.name) ?? []),
      ...(manys.get(resource.name) ?? []),
      ...(throughs.get(resource.name) ?? []),
    ];
    checkNames(ctx, resource, relations);
  }
}

/** Reports each relation whose name collides with a name the resource has already: to-one first, then to-many. */
function checkNames(ctx: CheckContext, resource: SalvagedResource, relations: RelationSite[]): void {
  const seen = new Map<string, Other>();
  const taken: Taken[] = [
    ...SYSTEM_FIELDS.map((name) => ({ kind: 'system' as const, name })),
    ...resource.fields.declared
      .filter((name) => FIELD_NAME.test(name))
      .map((name) => ({ kind: 'field' as const, name })),
    ...resource.declaredActions.map((name) => ({ kind: 'action' as const, name })),
  ];
  for (const other of taken) if (!seen.has(collisionKey(other.name))) seen.set(collisionKey(other.name), other);
  for (const relation of relations) {
    const other = seen.get(collisionKey(relation.name));
    if (other === undefined) seen.set(collisionKey(relation.name), relation);
    else ctx.report(relation.path, clashMessage(relation, other, seen), 'key');
  }
}

function needsAsMessage(field: string, to: string): string {
  const example = names(typeNameOf(to)).camel;
  const stem = field.replace(/ID$/, '');
  const what = 'a ref field whose name does not end in Id needs `as` to name its relation';
  // renamed, the field's own name is its relation's (found by a newcomer: `prerequisite` was offered `as: course`)
  const rename = `rename it ${stem}Id (its relation is then ${stem})`;
  return collisionKey(example) === collisionKey(field)
    ? `${what}, other than its own name; or ${rename}`
    : `${what}, e.g. as: ${example}; or ${rename}`;
}

function describe(relation: RelationSite): string {
  if (relation.kind === 'through') {
    return relation.on === relation.holder && relation.field === relation.name
      ? `the many-to-many relation "${relation.name}"`
      : `the many-to-many inverse "${relation.name}" on ${relation.on} (of ${relation.holder}.${relation.field.replace("'s inverse", '')})`;
  }
  return relation.kind === 'one'
    ? `${relation.field}'s relation "${relation.name}"`
    : `${relation.field}'s inverse "${relation.name}" on ${relation.on}`;
}

function describeOther(relation: RelationSite, other: Other): string {
  const of = relation.kind === 'many' ? ` of ${relation.on}` : '';
  switch (other.kind) {
    case 'system':
      return `the system field "${other.name}"`;
    case 'field':
      return relation.kind === 'one' && other.name === relation.field
        ? `the field's own name`
        : `the field "${other.name}"${of}`;
    case 'action':
      return `the action "${other.name}"${of}`;
    case 'through':
      return `${describe(other)}`;
    default: {
      const field = other.holder === relation.holder ? other.field : `${other.holder}.${other.field}`;
      const what = other.kind === 'one' ? 'relation' : 'inverse';
      return other.kind === relation.kind && other.name === relation.name
        ? `${field}'s`
        : `${field}'s ${what} "${other.name}"`;
    }
  }
}

/** What to do: rename the relation (or one of the two relations) with the option that names it. */
function fix(relation: RelationSite, other: Other, seen: ReadonlyMap<string, Other>): string {
  const isRelation = other.kind === 'one' || other.kind === 'many';
  const kinds = isRelation ? [relation.kind, other.kind] : [relation.kind];
  const options = (['one', 'many', 'through'] as const)
    .filter((kind) => kinds.includes(kind))
    .map((kind) =>
      kind === 'one' ? '`as:`' : kind === 'many' ? '`inverse:`' : 'its key under `relations` (or its `inverse:`)',
    )
    .join(' or ');
  const which = isRelation ? 'one of them' : 'it';
  const example =
    relation.kind === 'many' && !seen.has(collisionKey(relation.example)) ? ` (e.g. inverse: ${relation.example})` : '';
  return `give ${which} another name with ${options}${example}`;
}

function clashMessage(relation: RelationSite, other: Other, seen: ReadonlyMap<string, Other>): string {
  return `${describe(relation)} clashes with ${describeOther(relation, other)}: ${fix(relation, other, seen)}`;
}
