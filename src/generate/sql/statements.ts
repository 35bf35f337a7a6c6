import type { Action, Field, Resource } from '../../model.js';
import { serverFields, writableFields } from '../../schema/columns.js';
import type { SqlDialect } from '../../schema/dialect.js';

export interface StatementText {
  key: string;
  doc: string;
  sql: string;
}

/** Numbers the parameters of one statement: `$1, $2…` or `?, ?…` as the dialect writes them. */
function parameters(d: SqlDialect): () => string {
  let n = 0;
  return () => d.param(++n);
}

/** The columns every statement returns, in the order the store decodes them. */
export function selectListOf(resource: Resource, d: SqlDialect): string {
  return ['id', ...resource.fields.map((f) => f.column), 'created_at', 'updated_at', 'version']
    .map((c) => d.ident(c))
    .join(', ');
}

/** The column an `owner` rule compares with the token subject, if the resource has one. */
export function ownerColumn(resource: Resource): string | undefined {
  if (resource.owner === undefined) return undefined;
  if (resource.owner === 'id') return 'id';
  return resource.fields.find((f) => f.name === resource.owner)?.column;
}

/**
 * The data-access statements of one resource. Parameter order is the same in every dialect, and `owner`
 * (the subject a request is restricted to, or NULL for none) follows the id wherever the resource has an owner:
 * - get: [id, owner?]; delete: [id, owner?, expected version or NULL]
 * - insert: [id (uuid ids only), …writable fields, …server fields, createdAt, updatedAt]
 * - update: […writable fields, updatedAt, id, owner?, expected version or NULL]
 * - patch: per writable field [present (0/1), value] (a json object is merged with the stored value by the store first);
 *   then [updatedAt, id, owner?, expected version or NULL]

 * Listings are written per query shape at run time (see the generated http/listing.ts).
 * - an action: […set values, updatedAt, id, owner?, expected version or NULL, …when values]
 */
export function resourceStatements(resource: Resource, d: SqlDialect): StatementText[] {
  const table = d.ident(resource.table);
  const id = d.ident('id');
  const version = d.ident('version');
  const owner = ownerColumn(resource);
  const selectList = selectListOf(resource, d);
  /** `AND owner IS coalesce(?, owner)`: a NULL parameter leaves the statement unrestricted */
  const ownerGuard = (next: () => string): string =>
    owner === undefined ? '' : ` AND ${d.nullSafeEquals(d.ident(owner), `coalesce(${next()}, ${d.ident(owner)})`)}`;
  const byId = (next: () => string): string => `${id} = ${next()}${ownerGuard(next)}`;

  const insertColumns = [
    ...(resource.id === 'uuid' ? ['id'] : []),
    ...writableFields(resource).map((f) => f.column),
    ...serverFields(resource).map((f) => f.column),
    'created_at',
    'updated_at',
  ];
  const insertParam = parameters(d);
  const insert =
    `INSERT INTO ${table} (${insertColumns.map((c) => d.ident(c)).join(', ')}) ` +
    `VALUES (${insertColumns.map(() => insertParam()).join(', ')}) RETURNING ${selectList}`;

  const updateParam = parameters(d);
  // an owner field left out of a PUT keeps its owner (NULL parameter)
  const assignments = [...writableFields(resource).map((f) => f.column), 'updated_at'].map((c) =>
    c === owner ? `${d.ident(c)} = coalesce(${updateParam()}, ${d.ident(c)})` : `${d.ident(c)} = ${updateParam()}`,
  );
  const update =
    `UPDATE ${table} SET ${assignments.join(', ')}, ${version} = ${version} + 1 ` +
    `WHERE ${byId(updateParam)} AND ${version} = coalesce(${updateParam()}, ${version}) RETURNING ${selectList}`;

  const patchParam = parameters(d);
  const patchAssignments = writableFields(resource).map((f) => {
    const column = d.ident(f.column);
    const [present, value] = [patchParam(), patchParam()];
    return `${column} = CASE WHEN ${present} = 1 THEN ${value} ELSE ${column} END`;
  });
  const patch =
    `UPDATE ${table} SET ${[...patchAssignments, `${d.ident('updated_at')} = ${patchParam()}`].join(', ')}, ${version} = ${version} + 1 ` +
    `WHERE ${byId(patchParam)} AND ${version} = coalesce(${patchParam()}, ${version}) RETURNING ${selectList}`;

  const get = parameters(d);
  const remove = parameters(d);
  const statements: StatementText[] = [
    { key: 'get', doc: 'one record by id', sql: `SELECT ${selectList} FROM ${table} WHERE ${byId(get)}` },
    { key: 'insert', doc: 'a new record', sql: insert },
    { key: 'update', doc: 'every writable field, guarded by an optional expected version', sql: update },
    { key: 'patch', doc: 'a JSON Merge Patch in one statement: absent fields kept', sql: patch },
    {
      key: 'delete',
      doc: 'one record by id, guarded by an optional expected version',
      sql: `DELETE FROM ${table} WHERE ${byId(remove)} AND ${version} = coalesce(${remove()}, ${version})`,
    },
  ];
  for (const action of resource.actions.filter((a) => a.set.length > 0)) {
    statements.push(actionStatement(resource, action, d, selectList, byId));
  }
  return statements;
}

/** The single UPDATE of a `set` action: its `when` is part of the WHERE clause, so check and write are atomic. */
function actionStatement(
  resource: Resource,
  action: Action,
  d: SqlDialect,
  selectList: string,
  byId: (next: () => string) => string,
): StatementText {
  const next = parameters(d);
  const column = (name: string): string => d.ident(fieldNamed(resource, name).column);
  const assignments = [...action.set.map((s) => column(s.field)), d.ident('updated_at')].map((c) => `${c} = ${next()}`);
  const version = d.ident('version');
  const where = [
    byId(next),
    `${version} = coalesce(${next()}, ${version})`,
    ...action.when.map((w) => whenCondition(column(w.field), w.values, next)),
  ];
  return {
    key: action.names.camel,
    doc: `the ${action.name} action: ${action.set.map((s) => s.field).join(', ')} set where ${action.when.map((w) => w.field).join(', ') || 'the record exists'}`,
    sql:
      `UPDATE ${d.ident(resource.table)} SET ${assignments.join(', ')}, ${version} = ${version} + 1 ` +
      `WHERE ${where.join(' AND ')} RETURNING ${selectList}`,
  };
}

function whenCondition(column: string, values: readonly unknown[], next: () => string): string {
  const listed = values.filter((v) => v !== null);
  const inList = listed.length === 0 ? undefined : `${column} IN (${listed.map(() => next()).join(', ')})`;
  if (listed.length === values.length) return inList ?? 'FALSE';
  return inList === undefined ? `${column} IS NULL` : `(${inList} OR ${column} IS NULL)`;
}

export function fieldNamed(resource: Resource, name: string): Field {
  const field = resource.fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`no field ${name} in ${resource.name}: the definition was not validated`);
  return field;
}
