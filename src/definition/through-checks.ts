/**
 * Semantic checks of many-to-many relations (`relations: { tags: { through: book-tags, via: [bookId, tagId] } }`)
 * and of resource-level unique keys. A join resource holds one ref to each side: without `via` it must hold exactly
 * two refs, one to this resource; with `via`, the two fields named must be refs, the first to this resource.
 * The names the relations take (on this resource, and the inverse on the other) are checked with the others'
 * in relation-checks.ts.
 */
import { names, typeNameOf } from '../naming.js';
import type { CheckContext } from './check-context.js';
import { didYouMean } from './did-you-mean.js';
import type { PathSeg } from './positions.js';
import type { SalvagedResource, SalvagedThrough } from './salvage.js';

/** A many-to-many relation whose join resource is sound: where its two names go. */
export interface ThroughRelation {
  on: string;
  name: string;
  path: PathSeg[];
  /** the other side, and the name of the inverse there, with where it is written */
  other: string;
  inverse: string;
  inversePath: PathSeg[];
}

/** Checks every `relations` entry; returns those whose join resource is sound. */
export function checkThrough(ctx: CheckContext, resources: ReadonlyMap<string, SalvagedResource>): ThroughRelation[] {
  const sound: ThroughRelation[] = [];
  for (const resource of resources.values()) {
    for (const [name, relation] of resource.relations) {
      const path: PathSeg[] = ['resources', resource.name, 'relations', name];
      const other = otherSide(ctx, resources, resource, relation, path);
      if (other === undefined) continue;
      const inverse = relation.inverse ?? names(resource.name).camel;
      if (relation.inverse === undefined && relation.inverseWritten) continue; // reported by the schema
      sound.push({
        on: resource.name,
        name,
        path,
        other,
        inverse,
        inversePath: relation.inverseWritten ? [...path, 'inverse'] : path,
      });
    }
  }
  return sound;
}

/** The other side of a many-to-many relation, or undefined (reported) when its join resource cannot make one. */
function otherSide(
  ctx: CheckContext,
  resources: ReadonlyMap<string, SalvagedResource>,
  resource: SalvagedResource,
  relation: SalvagedThrough,
  path: PathSeg[],
): string | undefined {
  const join = resources.get(relation.through);
  if (join === undefined) {
    const hint = didYouMean(relation.through, ctx.definition.declaredResources);
    if (!ctx.definition.declaredResources.includes(relation.through)) {
      ctx.report([...path, 'through'], `through "${relation.through}" is not a resource${hint}`);
    }
    return undefined;
  }
  if (join.name === resource.name) {
    ctx.report([...path, 'through'], 'through names the join resource, which holds the links: not this resource');
    return undefined;
  }
  // the ref fields a relation can go through: a write-only one makes no relation
  const refs = [...join.refs].filter(([field]) => join.fields.valid.get(field)?.writeOnly !== true);
  const example = (near: string, far: string) => `via: [${near}, ${far}]`;
  if (relation.via !== undefined) {
    const [near, far] = relation.via;
    const nearRef = refs.find(([field]) => field === near)?.[1];
    const farRef = refs.find(([field]) => field === far)?.[1];
    const candidates = refs.map(([field]) => field);
    let ok = true;
    if (nearRef === undefined || nearRef.to !== resource.name) {
      ctx.report(
        [...path, 'via', 0],
        nearRef === undefined
          ? `"${near}" is not a ref field of ${join.name}${didYouMean(near, candidates)}`
          : `"${near}" refers to ${nearRef.to}: the first field of via refers to ${resource.name}`,
      );
      ok = false;
    }
    if (farRef === undefined) {
      ctx.report([...path, 'via', 1], `"${far}" is not a ref field of ${join.name}${didYouMean(far, candidates)}`);
      ok = false;
    }
    if (near === far) {
      ctx.report([...path, 'via', 1], 'the two fields of via are the two sides: they must differ');
      ok = false;
    }
    if (ok) checkLinkable(ctx, join, [near, far], [...path, 'through']);
    return ok ? farRef?.to : undefined;
  }
  const toThis = refs.filter(([, ref]) => ref.to === resource.name);
  if (toThis.length === 0) {
    const field = `${names(typeNameOf(resource.name)).camel}Id`;
    ctx.report(
      [...path, 'through'],
      `${join.name} holds no ref to ${resource.name}: a join resource refers to both sides ` +
        `(e.g. ${field}: { type: ref, to: ${resource.name} })`,
    );
    return undefined;
  }
  if (refs.length !== 2 || toThis.length !== 1) {
    const listed = refs.length === 0 ? 'no ref field' : refs.map(([field, ref]) => `${field} → ${ref.to}`).join(', ');
    const near = toThis[0]?.[0] ?? '';
    const far = refs.find(([field]) => field !== near)?.[0] ?? 'otherId';
    ctx.report(
      [...path, 'through'],
      `${join.name} must hold exactly one ref to ${resource.name} and one to the other side (it has ${listed}): ` +
        `say which with ${example(near, far)}`,
    );
    return undefined;
  }
  const [[near], [far, farRef]] = toThis[0]?.[0] === refs[0]?.[0] ? [refs[0]!, refs[1]!] : [refs[1]!, refs[0]!];
  checkLinkable(ctx, join, [near, far], [...path, 'through']);
  return farRef.to;
}

/** A link is made from the two ids alone: every other required field of the join resource needs a default. */
function checkLinkable(ctx: CheckContext, join: SalvagedResource, sides: string[], path: PathSeg[]): void {
  const missing = [...join.fields.valid].filter(
    ([name, field]) =>
      !sides.includes(name) && !join.owners.includes(name) && field.required === true && field.default === undefined,
  );
  if (missing.length === 0) return;
  const listed = missing.map(([name]) => name).join(', ');
  ctx.report(
    path,
    `${join.name} has required fields without a default (${listed}): linking (PUT …/{otherId}) sets the two ids ` +
      'alone; give them a default or make them optional',
  );
}

/** Each unique key names fields of the resource, each once, and no two keys are the same. */
export function checkUniqueKeys(ctx: CheckContext, resource: SalvagedResource): void {
  const seen = new Set<string>();
  resource.unique.forEach((key, i) => {
    const path: PathSeg[] = ['resources', resource.name, 'unique', i];
    key.forEach((field, j) => {
      if (!resource.fields.declared.includes(field)) {
        ctx.report(
          [...path, j],
          `"${field}" is not a field of ${resource.name}${didYouMean(field, resource.fields.declared)}`,
        );
      } else if (resource.fields.valid.get(field)?.type === 'json') {
        ctx.report([...path, j], `"${field}" is a json field: a key compares values, not documents`);
      } else if (resource.fields.valid.get(field)?.computed === true) {
        ctx.report([...path, j], `"${field}" is computed: a key compares stored values`);
      } else if (resource.fields.valid.get(field)?.writeOnly === true) {
        const why =
          'a unique key cannot hold it, since the 409 a taken value answers would tell whether another record holds it';
        ctx.report([...path, j], `"${field}" is writeOnly: ${why}`);
      }
    });
    const sorted = [...key].sort().join(',');
    if (seen.has(sorted)) ctx.report(path, `the key [${key.join(', ')}] is listed twice`);
    seen.add(sorted);
  });
}
