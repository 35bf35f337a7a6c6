import type { Api } from '../model.js';
import { DefinitionError, type Problem } from '../errors.js';
import { unaffordablePaths } from '../contract/relations.js';
import { describeScan, describeUnboundedTrigram, scansOf, unboundedTrigrams } from '../contract/scans.js';
import type { Located } from '../definition/positions.js';
import { indexClashes, POSTGRES_NAME_BYTES, type IndexSite } from '../schema/index-clashes.js';
import { snapshotOf } from '../schema/snapshot.js';
import { load, parseDefinition, type Loaded } from './load.js';
import { normalise } from './normalise.js';
import { locate, validate } from './validate.js';

/**
 * A definition read, what it would be wise to change in it though it is valid (printed as warnings), and what is
 * worth knowing of it (notes: the listings no index serves).
 */
export interface Read {
  api: Api;
  warnings: Problem[];
  notes: Problem[];
}

/**
 * Reads, checks and normalises a definition file: what every command that takes a definition calls.
 * Throws a UserError for an unreadable file and a DefinitionError listing every problem.
 */
export async function readDefinition(file: string): Promise<Api> {
  return (await readDefinitionWarned(file)).api;
}

/** The same as readDefinition, with the definition's warnings (`restsmith validate` prints them). */
export async function readDefinitionWarned(file: string): Promise<Read> {
  return read(await load(file));
}

/** The same as readDefinition, for the text of `file` already read (see definition-text.ts). */
export function definitionOf(file: string, text: string): Api {
  return definitionWarned(file, text).api;
}

/** The same as definitionOf, with the definition's warnings (`restsmith generate` prints them). */
export function definitionWarned(file: string, text: string): Read {
  return read(parseDefinition(file, text));
}

function read(loaded: Loaded): Read {
  const api = normalise(validate(loaded));
  const problems = modelProblems(api);
  if (problems.length > 0) throw new DefinitionError(locate(loaded, problems));
  return { api, warnings: locate(loaded, modelWarnings(api)), notes: locate(loaded, modelNotes(api)) };
}

/**
 * One note per field whose listings would read the whole table, at the field, naming what would, and one per
 * trigram-indexed field whose values have no bound that keeps a write cheap (contract/scans.ts).
 */
export function modelNotes(api: Api): Located[] {
  return api.resources.flatMap((resource) => [
    ...scansOf(api, resource).map((scan) => ({
      path: ['resources', resource.name, 'fields', scan.field],
      anchor: 'key' as const,
      message: describeScan(scan),
    })),
    ...unboundedTrigrams(resource).map((field) => ({
      path: ['resources', resource.name, 'fields', field.name],
      anchor: 'key' as const,
      message: describeUnboundedTrigram(field),
    })),
  ]);
}

/**
 * What a valid definition would do better to change: the include paths that `limits.includeDepth` and the page
 * size allow but no request can be served, being over `limits.include.maxRecords` even under one record.
 */
export function modelWarnings(api: Api): Located[] {
  const over = unaffordablePaths(api);
  const costliest = over[0];
  if (costliest === undefined) return [];
  const { includeDepth, include, pageSize } = api.limits;
  const count = (n: number): string => n.toLocaleString('en-US');
  const others = over.length - 1;
  return [
    {
      path: ['limits', 'includeDepth'],
      message:
        `with includeDepth ${includeDepth} and embedded pages of ${pageSize.default} records (pageSize.default), ` +
        `include=${costliest.path} could embed up to ${count(costliest.records)} records under one record of ` +
        `${costliest.resource}, over limits.include.maxRecords (${count(include.maxRecords)}): every request ` +
        `naming it is a 400${others === 0 ? '' : `, and so are ${count(others)} more paths`}. ` +
        'Lower includeDepth or pageSize.default, or raise limits.include.maxRecords',
    },
  ];
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
