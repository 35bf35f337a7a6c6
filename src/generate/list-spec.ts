import type { Api, Resource } from '../model.js';
import type { JsonSchema } from '../contract/json-schemas.js';
import { listables } from '../contract/listing.js';
import { ownerColumn } from './sql/statements.js';

/** The ListSpec of the generated store (see the generated http/listing.ts). */
export function listSpec(resource: Resource, api: Api, selectList: string): JsonSchema {
  const owner = ownerColumn(resource);
  return {
    table: resource.table,
    selectList,
    columns: Object.fromEntries(
      listables(api, resource).map((f) => [
        f.name,
        { column: f.column, kind: f.kind, ...(f.notNull === true && { notNull: true }) },
      ]),
    ),
    ...(owner !== undefined && { ownerColumn: owner }),
  };
}
