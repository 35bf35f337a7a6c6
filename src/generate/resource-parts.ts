import type { Api, Operation, Resource } from '../model.js';
import { relationFilterFields } from '../contract/listing.js';
import { targetOf } from '../contract/relations.js';

/** What the model file of a resource declares beside its fields: its relations' types, and the types they import. */
export interface ModelTypes {
  /** model.ts: the relations a read or a listing may embed, typed (`author?: AuthorWithRelations | null`) */
  embedded: { key: string; type: string }[];
  /** the model types of other resources those use, and whether one is a page */
  embeddedImports: { type: string; module: string }[];
  /** what model.ts imports from types.ts: JsonValue, Page */
  typesImport: string;
}

/** The relations of `resource` as typed properties, and the model types of other resources they use. */
export function embeddedTypes(api: Api, resource: Resource): ModelTypes {
  const others = new Map<string, string>();
  const embedded = resource.relations.map((relation) => {
    const target = targetOf(api, relation);
    const type = `${target.typeName}WithRelations`;
    if (target.name !== resource.name) others.set(`../${target.names.kebab}/model.js`, type);
    return { key: relation.name, type: relation.kind === 'one' ? `${type} | null` : `Page<${type}>` };
  });
  return {
    embedded,
    embeddedImports: [...others].map(([module, type]) => ({ type, module })),
    typesImport: [
      ...(resource.fields.some((f) => f.type === 'json') ? ['JsonValue'] : []),
      ...(resource.relations.some((r) => r.kind === 'many') ? ['Page'] : []),
    ].join(', '),
  };
}

/** `author (fullName, country), tags (id, name)`: the fields each relation filters a listing by. */
export function filtersThrough(api: Api, resource: Resource): string {
  return relationFilterFields(api, resource)
    .filter(({ fields }) => fields.length > 0)
    .map(({ relation, fields }) => `${relation.name} (${fields.map((f) => f.name).join(', ')})`)
    .join(', ');
}

/** The methods each known path takes; the others answer 405 with `Allow`. */
export function methodGuardsOf(resource: Resource): { url: string; allowed: string[] }[] {
  const has = (op: Operation): boolean => resource.operations.includes(op);
  const collection = [...(has('list') ? ['GET'] : []), ...(has('create') ? ['POST'] : [])];
  const item = [
    ...(has('read') ? ['GET'] : []),
    ...(has('update') ? ['PUT', 'PATCH'] : []),
    ...(has('delete') ? ['DELETE'] : []),
  ];
  return [
    ...(collection.length > 0 ? [{ url: `/${resource.name}`, allowed: collection }] : []),
    ...(item.length > 0 ? [{ url: `/${resource.name}/:id`, allowed: item }] : []),
  ];
}
