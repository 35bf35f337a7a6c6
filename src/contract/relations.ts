import type { Api, Relation, Resource } from '../model.js';

/** The resource a relation leads to. */
export function targetOf(api: Api, relation: Relation): Resource {
  const target = api.resources.find((r) => r.name === relation.target);
  if (target === undefined) throw new Error(`relation ${relation.name} leads to unknown ${relation.target}`);
  return target;
}

/**
 * Every path `include` takes on `resource`'s reads and listings, to `limits.includeDepth` levels: `author`,
 * `books`, `books.author`… in the order of the relations. Relations into resources that cannot be read are left out.
 */
export function includePaths(api: Api, resource: Resource, depth = api.limits.includeDepth): string[] {
  if (depth <= 0) return [];
  return resource.relations.flatMap((relation) => {
    const target = targetOf(api, relation);
    return [relation.name, ...includePaths(api, target, depth - 1).map((path) => `${relation.name}.${path}`)];
  });
}

/** The to-many relations of `resource` served as nested routes (`GET /authors/{id}/books`). */
export function nestedRelations(api: Api, resource: Resource): Relation[] {
  return resource.relations.filter((r) => r.kind === 'many' && targetOf(api, r).operations.includes('list'));
}

/**
 * The to-many relations of `resource` that take a nested create (`POST /authors/{id}/books`): the target creates
 * records and a client writes the ref field (a read-only one is the server's to set).
 */
export function nestedCreates(api: Api, resource: Resource): Relation[] {
  return resource.relations.filter((r) => {
    const target = targetOf(api, r);
    return (
      r.kind === 'many' &&
      r.through === undefined &&
      target.operations.includes('create') &&
      target.fields.some((f) => f.name === r.field && !f.readOnly)
    );
  });
}

/** The to-one relations of `resource` that its records may be created under (the other side of `nestedCreates`). */
export function createdUnder(api: Api, resource: Resource): Relation[] {
  return resource.relations.filter(
    (r) =>
      r.kind === 'one' &&
      nestedCreates(api, targetOf(api, r)).some(
        (inverse) => inverse.target === resource.name && inverse.field === r.field,
      ),
  );
}

/** The join resource of a many-to-many relation. */
export function joinOf(api: Api, relation: Relation): Resource | undefined {
  const through = relation.through;
  return through === undefined ? undefined : api.resources.find((r) => r.name === through.resource);
}

/**
 * The resource whose deprecation a nested route under `parent` announces (its headers, and `deprecated: true` in the
 * OpenAPI document): the parent's own, else the target's (`GET /books/{id}/old-reviews` is a listing of old
 * reviews), else, for a many-to-many relation, its join resource's (a link creates or deletes one of its records);
 * undefined where none of them is deprecated.
 */
export function nestedDeprecation(api: Api, parent: Resource, relation: Relation): Resource | undefined {
  return [parent, targetOf(api, relation), joinOf(api, relation)].find((r) => r?.deprecated !== undefined);
}

/**
 * The many-to-many relations of `resource` with link routes (`PUT` and `DELETE /books/{id}/tags/{tagId}`): those
 * whose join resource creates records (PUT) or deletes them (DELETE).
 */
export function linkRelations(api: Api, resource: Resource): { relation: Relation; put: boolean; delete: boolean }[] {
  return resource.relations.flatMap((relation) => {
    const join = joinOf(api, relation);
    if (join === undefined) return [];
    const [put, del] = [join.operations.includes('create'), join.operations.includes('delete')];
    return put || del ? [{ relation, put, delete: del }] : [];
  });
}

/** The path parameter of the other record of a link: `tagId` in `/books/{id}/tags/{tagId}`. */
export function linkParameterName(resource: Resource, target: Resource): string {
  const lower = target.typeName.charAt(0).toLowerCase() + target.typeName.slice(1);
  return `${target.name === resource.name ? 'other' : lower}Id`;
}

interface RelationLinkView {
  kind: Relation['kind'];
  target: string;
  field: string;
  column: string;
  through?: { resource: string; near: string; far: string };
}

/** What the generated server's embedder needs: by resource, each relation's kind, target, field and column. */
export function relationMap(api: Api): Record<string, Record<string, RelationLinkView>> {
  const link = (r: Relation): RelationLinkView => ({
    kind: r.kind,
    target: r.target,
    field: r.field,
    column: r.column,
    ...(r.through !== undefined && {
      through: { resource: r.through.resource, near: r.through.near.column, far: r.through.far.column },
    }),
  });
  return Object.fromEntries(
    api.resources.map((resource) => [
      resource.name,
      Object.fromEntries(resource.relations.map((r) => [r.name, link(r)])),
    ]),
  );
}

/** An include path of `resource`, and the most records it could embed under one record of it (a read). */
export interface IncludeCost {
  resource: string;
  path: string;
  records: number;
}

/**
 * The include paths no request can be served (a 400 in the server: relations/budget.ts), since even under one record
 * they could embed more than `limits.include.maxRecords` records: a to-one hop embeds one record per record above
 * it, a to-many one a page of `limits.pageSize.default`; a path fetches each of its prefixes too. Costliest first.
 */
export function unaffordablePaths(api: Api): IncludeCost[] {
  const { includeDepth, include, pageSize } = api.limits;
  const found: IncludeCost[] = [];
  const walk = (from: string, resource: Resource, path: string, above: number, sum: number, depth: number) => {
    if (depth === 0) return;
    for (const relation of resource.relations) {
      const records = above * (relation.kind === 'one' ? 1 : pageSize.default);
      const named = path === '' ? relation.name : `${path}.${relation.name}`;
      if (sum + records > include.maxRecords) found.push({ resource: from, path: named, records: sum + records });
      walk(from, targetOf(api, relation), named, records, sum + records, depth - 1);
    }
  };
  for (const resource of api.resources) walk(resource.name, resource, '', 1, 0, includeDepth);
  return found.sort((a, b) => b.records - a.records);
}
