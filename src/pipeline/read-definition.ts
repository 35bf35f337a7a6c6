import type { Api } from '../model.js';
import { DefinitionError } from '../errors.js';
import type { Located } from '../definition/positions.js';
import { indexClashes, POSTGRES_NAME_BYTES, type IndexSite } from '../schema/index-clashes.js';
import { snapshotOf } from '../schema/snapshot.js';
import { load, parseDefinition, type Loaded } from './load.js';
import { normalise } from './normalise.js';
import { locate, validate } from './validate.js';

/**
 * Reads, checks and normalises a definition file: what every command that takes a definition calls.
 * Throws a UserError for an unreadable file and a DefinitionError listing every problem.
 */
export async function readDefinition(file: string): Promise<Api> {
  return read(await load(file));
}

/** The same as readDefinition, for the text of `file` already read (see definition-text.ts). */
export function definitionOf(file: string, text: string): Api {
  return read(parseDefinition(file, text));
}

function read(loaded: Loaded): Api {
  const api = normalise(validate(loaded));
  const problems = modelProblems(api);
  if (problems.length > 0) throw new DefinitionError(locate(loaded, problems));
  return api;
}

/** What only the tables show: two indexes that would take one name in the database (schema/index-clashes.ts). */
function modelProblems(api: Api): Located[] {
  return indexClashes(snapshotOf(api)).map(({ first, second, name, postgresOnly }) => ({
    path: pathOf(second),
    ...(second.key === undefined && { anchor: 'key' as const }),
    message:
      `the ${second.kind} of ${describe(second)} would be named "${name}"${postgresOnly ? ` in PostgreSQL (it keeps the first ${POSTGRES_NAME_BYTES} bytes of a name)` : ''}, ` +
      `as the ${first.kind} of ${describe(first)} is: the migration would fail. Rename this field or resource, or that one ` +
      '(`renamedFrom` keeps its data)',
  }));
}

const describe = (site: IndexSite): string =>
  site.kind === 'table'
    ? site.resource
    : site.key === undefined
      ? `${site.resource}.${site.fields.join(', ')}`
      : `the unique key [${site.fields.join(', ')}] of ${site.resource}`;

const pathOf = (site: IndexSite): Located['path'] =>
  site.kind === 'table'
    ? ['resources', site.resource]
    : site.key === undefined
      ? ['resources', site.resource, 'fields', site.fields[0] ?? '']
      : ['resources', site.resource, 'unique', site.key];
