import type { Resource } from '../../model.js';
import { serverFields, writableFields } from './columns.js';
import type { SqlDialect } from './dialect.js';

export type StatementKey = 'get' | 'listFirst' | 'listAfter' | 'insert' | 'update' | 'delete';

export interface StatementText {
  key: StatementKey;
  doc: string;
  sql: string;
}

/** Numbers the parameters of one statement: `$1, $2…` or `?, ?…` as the dialect writes them. */
function parameters(d: SqlDialect): () => string {
  let n = 0;
  return () => d.param(++n);
}

/**
 * The data-access statements of one resource. Parameter order is the same in every dialect:
 * - insert: [id (uuid ids only), …writable fields, …server fields, createdAt, updatedAt]
 * - update: […writable fields, updatedAt, id, expected version or null]
 */
export function resourceStatements(resource: Resource, d: SqlDialect): StatementText[] {
  const table = d.ident(resource.table);
  const id = d.ident('id');
  const version = d.ident('version');
  const selectList = ['id', ...resource.fields.map((f) => f.column), 'created_at', 'updated_at', 'version']
    .map((c) => d.ident(c))
    .join(', ');

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
  const assignments = [...writableFields(resource).map((f) => f.column), 'updated_at'].map(
    (c) => `${d.ident(c)} = ${updateParam()}`,
  );
  const update =
    `UPDATE ${table} SET ${assignments.join(', ')}, ${version} = ${version} + 1 ` +
    `WHERE ${id} = ${updateParam()} AND ${version} = coalesce(${updateParam()}, ${version}) RETURNING ${selectList}`;

  const one = parameters(d);
  const first = parameters(d);
  const after = parameters(d);
  const remove = parameters(d);
  return [
    { key: 'get', doc: 'one record by id', sql: `SELECT ${selectList} FROM ${table} WHERE ${id} = ${one()}` },
    {
      key: 'listFirst',
      doc: 'the first page, in id order',
      sql: `SELECT ${selectList} FROM ${table} ORDER BY ${id} LIMIT ${first()}`,
    },
    {
      key: 'listAfter',
      doc: 'the page after a cursor (keyset: as cheap as the first page)',
      sql: `SELECT ${selectList} FROM ${table} WHERE ${id} > ${after()} ORDER BY ${id} LIMIT ${after()}`,
    },
    { key: 'insert', doc: 'a new record', sql: insert },
    { key: 'update', doc: 'every writable field, guarded by an optional expected version', sql: update },
    { key: 'delete', doc: 'one record by id', sql: `DELETE FROM ${table} WHERE ${id} = ${remove()}` },
  ];
}
