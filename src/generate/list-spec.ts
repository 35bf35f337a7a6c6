import type { Api, Relation, Resource } from '../model.js';
import type { JsonSchema } from '../contract/json-schemas.js';
import { listables } from '../contract/listing.js';
import { joinOf, targetOf } from '../contract/relations.js';
import { ownerColumns } from './sql/statements.js';
import { trigramKeysTable, trigramTable } from '../schema/trigram.js';

/** The ListSpec of the generated store (see the generated http/listing.ts). */
export function listSpec(resource: Resource, api: Api, selectList: string): JsonSchema {
  const owners = ownerColumns(resource);
  return {
    table: resource.table,
    selectList,
    columns: columnsOf(api, resource),
    ...(owners.length > 0 && { ownerColumns: owners }),
    ...(resource.relations.length > 0 && {
      relations: Object.fromEntries(resource.relations.map((r) => [r.name, relationSpec(api, r)])),
    }),
  };
}

function columnsOf(api: Api, resource: Resource, timestamps = true): Record<string, JsonSchema> {
  const trigrams = new Set(resource.fields.filter((f) => f.trigram === true).map((f) => f.name));
  // on SQLite the FTS5 table's rowid is an integer id itself, or a text id's key (see schema/trigram.ts)
  const trigram = (column: string): JsonSchema => ({
    table: trigramTable(resource.table, column),
    ...(resource.id !== 'integer' && { keys: trigramKeysTable(resource.table, column) }),
  });
  return Object.fromEntries(
    listables(api, resource)
      .filter((f) => timestamps || (f.name !== 'createdAt' && f.name !== 'updatedAt'))
      .map((f) => [
        f.name,
        {
          column: f.column,
          kind: f.kind,
          ...(f.notNull === true && { notNull: true }),
          ...(f.folded === true && { folded: true }),
          ...(trigrams.has(f.name) && { trigram: trigram(f.column) }),
        },
      ]),
  );
}

/**
 * How a filter through `relation` reaches the related records (`?author.country=FR`): the hops from this table to
 * theirs, each `local IN (SELECT remote FROM table …)`; the resources whose read rules scope them (the target's, and
 * a join resource's).
 */
function relationSpec(api: Api, relation: Relation): JsonSchema {
  const target = targetOf(api, relation);
  const join = joinOf(api, relation);
  const through = relation.through;
  const via =
    through !== undefined && join !== undefined
      ? [
          { local: 'id', table: join.table, remote: through.near.column },
          { local: through.far.column, table: target.table, remote: 'id' },
        ]
      : relation.kind === 'one'
        ? [{ local: relation.column, table: target.table, remote: 'id' }]
        : [{ local: 'id', table: target.table, remote: relation.column }];
  return {
    target: target.name,
    ...(join !== undefined && { join: join.name }),
    via,
    columns: columnsOf(api, target, false),
  };
}
