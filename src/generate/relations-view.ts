import type { Api, OnDelete, Relation, Resource } from '../model.js';
import { callersOf, sight, type Sight } from '../contract/access-matrix.js';
import { ownedThroughRef, readsParent, relationMatrix } from '../contract/relation-matrix.js';
import { relationFilterFields } from '../contract/listing.js';
import { includePaths, joinOf, linkRelations, targetOf } from '../contract/relations.js';

/** One relation of a resource as test/generated/relations.ts checks it (see its Relation). */
export interface RelationView {
  collection: string;
  relation: string;
  /** the relation in paths (kebab-case) */
  segment: string;
  kind: 'one' | 'many';
  /** many-to-many: the join resource */
  through?: string;
  target: string;
  /** the ref field making the relation: the collection's (`one`), the target's (`many`) */
  field: string;
  /** an id no record of the collection has */
  missingId: string | number;
  /** a to-many relation: what deleting the record does to the records referring to it (when it may be deleted) */
  onDelete?: OnDelete;
  callers: string[];
  rows: { what: string; method: string; statuses: (number | null)[] }[];
  /** per caller: whether they read the collection's record (its include is checked for them) */
  readers: boolean[];
  /** per caller: what they see of the target's records by its `read` rule (embedded) and `list` rule (listed) */
  reads: Sight[];
  lists: Sight[];
  /** many-to-many, per caller: what they see of the links by the join's `read` rule */
  links?: Sight[];
  /** many-to-many: a link is owned by one of the records it names (its own-only readers are not checked) */
  linksByRef?: boolean;
  /** the target's owner fields (`id` where a record is its own owner) */
  owners: string[];
  /** whether the target's records are read one by one (GET /{target}/{id}) */
  targetReads: boolean;
  /** the target's fields the collection's listing filters on through the relation (equality), when it lists */
  filters: string[];
  /** per caller: what they list of the collection (a filter or an include on its listing shows them these) */
  collectionLists: Sight[];
  /** the collection's owner fields (`id`: a record is its own owner) */
  collectionOwners: string[];
  /** an include path one level deeper than `limits.includeDepth` allows, through this relation: a 400 */
  tooDeep?: string;
}

/** The records the relations test makes per relation: of the collection, and of the target. */
export const RELATION_RECORDS = { parents: 4, children: 6 };

/**
 * The relations the generated tests can exercise: those of resources they make records of, whose records they can
 * relate — a to-one relation whose ref the fixture fills in, a to-many one whose target's fixture refers to the
 * collection by that field, a many-to-many one whose target they make and whose links PUT makes.
 */
export function relationsView(
  api: Api,
  fixtures: Readonly<Record<string, { refs: Record<string, string> }>>,
): RelationView[] {
  return api.resources.flatMap((resource) => {
    const fixture = fixtures[resource.name];
    if (fixture === undefined) return [];
    return resource.relations.flatMap((relation) => {
      const target = targetOf(api, relation);
      const related = fixtures[target.name];
      const testable =
        relation.kind === 'one'
          ? fixture.refs[relation.field] === target.name
          : relation.through === undefined
            ? related?.refs[relation.field] === resource.name
            : related !== undefined && linkRelations(api, resource).some((l) => l.relation === relation && l.put);
      // a record's owner is read from its fields: a write-only one is never shown
      const shown = target.owners.every((o) => !target.fields.some((f) => f.name === o && f.writeOnly));
      return testable && shown ? [viewOf(api, resource, relation, target, Object.keys(related?.refs ?? {}))] : [];
    });
  });
}

function viewOf(api: Api, resource: Resource, relation: Relation, target: Resource, refs: string[]): RelationView {
  const callers = callersOf(api, resource);
  const rows = relation.kind === 'one' ? [] : relationMatrix(api, resource, relation, refs);
  const read = resource.operations.includes('read');
  const sights = (rule: Resource['access']['read']) => callers.map((c) => sight(rule, c, api.auth.adminRole));
  const join = joinOf(api, relation);
  const deletable =
    relation.kind === 'many' &&
    relation.through === undefined &&
    resource.operations.includes('delete') &&
    resource.writableWhen.delete.length === 0;
  // a path of includeDepth + 1 relations, starting with this one
  const depth = api.limits.includeDepth;
  const tooDeep = includePaths(api, target, depth)
    .map((path) => `${relation.name}.${path}`)
    .find((path) => path.split('.').length === depth + 1);
  const onDelete = deletable ? target.fields.find((f) => f.name === relation.field)?.ref?.onDelete : undefined;
  return {
    collection: resource.name,
    relation: relation.name,
    segment: relation.names.kebab,
    kind: relation.kind,
    ...(join !== undefined && { through: join.name }),
    target: target.name,
    field: relation.field,
    missingId: resource.id === 'uuid' ? '00000000-0000-4000-8000-000000000000' : 2_000_000_000,
    ...(onDelete !== undefined && { onDelete }),
    callers,
    rows: rows.map((row) => ({ ...row, statuses: callers.map((c) => row.statuses[c] ?? null) })),
    // a reader admitted to their own records only reads the record when they are its owner
    readers: callers.map((c) => read && readsParent(api, resource, c)),
    reads: sights(target.access.read),
    lists: sights(target.access.list),
    ...(join !== undefined && { links: sights(join.access.read), linksByRef: ownedThroughRef(join) }),
    owners: target.owners,
    targetReads: target.operations.includes('read'),
    // every field filtered on takes equality
    filters: resource.operations.includes('list')
      ? (relationFilterFields(api, resource).find((r) => r.relation === relation)?.fields ?? [])
          .map((f) => f.name)
          .filter((f) => f !== 'id' && !target.fields.some((x) => x.name === f && x.writeOnly))
      : [],
    collectionLists: resource.operations.includes('list') ? sights(resource.access.list) : callers.map(() => 'none'),
    collectionOwners: resource.owners,
    ...(tooDeep !== undefined && { tooDeep }),
  };
}
