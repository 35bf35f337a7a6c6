import type { Api, Resource } from '../model.js';
import { indexesOf } from '../schema/ddl.js';
import { tableOf } from '../schema/snapshot.js';

/** A unique key of a resource as the generated error handler answers a violation of it (http/errors.ts, UniqueKey). */
export interface UniqueKeyView {
  index: string;
  columns: string[];
  fields: string[];
  message: string;
}

/**
 * The unique keys of a resource, by the indexes its migrations make (schema/ddl.ts): the database names the index, or
 * its columns, that a write violates, and the 409 names the fields whose values are taken. `article` is the resource's
 * noun with its article: `a student`.
 */
export function uniqueKeysOf(api: Api, resource: Resource, article: string): UniqueKeyView[] {
  const table = tableOf(api, resource);
  return indexesOf(table)
    .filter((index) => index.unique)
    .map((index) => {
      const fields = index.columns.map((name) => table.columns.find((c) => c.name === name)?.field ?? name);
      return {
        index: index.name,
        columns: index.columns,
        fields,
        message: `${article} with this ${fields.join(' and ')} already exists`,
      };
    });
}
