import type { Action, Field, Resource, When } from '../../model.js';
import { patchedUnlessNull, writableFields, writtenFields } from '../../schema/columns.js';
import { sqlite } from '../../schema/dialect.js';

/**
 * One statement of a store, in the SQL both databases read, with named parameters: `names` in the order they first
 * appear. Parameters of fields are named as the field is (camelCase); the others are names no field can have (`id` is
 * not a field's name; the rest hold an underscore): `id`, `owner_scope` (the token subject a request is restricted to,
 * or NULL for none), `if_version` (the version an If-Match expects, or NULL for any), `created_at`, `updated_at`, per
 * PATCHed field that can be NULL `given_<field>` (see patchedUnlessNull), per value of an action's `when` (or of an
 * update or delete rule's) `when_<field>_<n>`, `any_state` (1 where your code writes outside an update or delete
 * rule's `when`, else 0) and `keep_owners` (1 where the caller may not change owner fields, see keepsOwners).
 */
export interface StatementText {
  key: string;
  /** the camelCase name of the `set` action the statement is the UPDATE of */
  action?: string;
  doc: string;
  sql: string;
  names: string[];
}

const ident = sqlite.ident;

/** `:name`s as they are written, the names remembered in order. */
function parameters(): { param: (name: string) => string; names: string[] } {
  const names: string[] = [];
  return {
    names,
    param: (name) => {
      if (!names.includes(name)) names.push(name);
      return `:${name}`;
    },
  };
}

/** The columns every statement returns, in the order the store decodes them. */
export function selectListOf(resource: Resource): string {
  return ['id', ...resource.fields.map((f) => f.column), 'created_at', 'updated_at', 'version']
    .map((c) => ident(c))
    .join(', ');
}

/** The columns an `owner` rule compares with the token subject (any of which admits); none without an owner. */
export function ownerColumns(resource: Resource): string[] {
  return resource.owners.flatMap((name) =>
    name === 'id' ? ['id'] : resource.fields.filter((f) => f.name === name).map((f) => f.column),
  );
}

/**
 * The data-access statements of one resource (listings are written per query shape at run time, see the generated
 * http/listing.ts): get, insert, update (PUT), patch (PATCH, one statement: each field kept unless given), delete,
 * and one UPDATE per `set` action, whose `when` is part of its WHERE clause.
 *
 * `events`: the delete returns the row it removed, for the event of the deletion (its id, version and owners).
 * `deleteReaches`: with events, a delete reaches the records of other resources whose refs cascade or are set null
 * (db/cascade.ts), and `deletable` asks its conditions first, as a query, before what it reaches is read.
 */
export function resourceStatements(
  resource: Resource,
  { events = false, deleteReaches = false }: { events?: boolean; deleteReaches?: boolean } = {},
): StatementText[] {
  const table = ident(resource.table);
  const selectList = selectListOf(resource);
  const owners = ownerColumns(resource);
  const version = ident('version');
  /**
   * `id = :id`, and where there is an owner, `owner IS NOT DISTINCT FROM coalesce(:owner_scope, owner)`; with several
   * owner columns, `(a = :owner_scope OR b = :owner_scope OR :owner_scope IS NULL)`. (PostgreSQL types a parameter
   * where it first appears: never first in `IS NULL`.)
   */
  const byId = (param: (name: string) => string): string[] => [
    `${ident('id')} = ${param('id')}`,
    ...(owners.length === 0
      ? []
      : owners.length === 1
        ? [
            `${ident(owners[0] ?? '')} IS NOT DISTINCT FROM coalesce(${param('owner_scope')}, ${ident(owners[0] ?? '')})`,
          ]
        : [
            `(${[...owners.map((c) => `${ident(c)} = ${param('owner_scope')}`), `${param('owner_scope')} IS NULL`].join(' OR ')})`,
          ]),
  ];
  // a caller who may not give records away (`:keep_owners` = 1: neither staff nor the administrator) keeps every owner
  // field as it is: a value equal to the stored one is no change (see the generated auth/owner.ts). Written first,
  // PostgreSQL types it as the integer it is.
  const givable = resource.fields.filter((f) => resource.owners.includes(f.name) && !f.readOnly);
  const keepsOwners = (
    param: (name: string) => string,
    valueOf: (f: Field) => string,
    fields: readonly Field[] = givable,
  ): string[] => {
    if (fields.length === 0) return [];
    const unchanged = fields.map((f) => `${valueOf(f)} IS NOT DISTINCT FROM ${ident(f.column)}`);
    const kept = unchanged.length === 1 ? unchanged.join('') : `(${unchanged.join(' AND ')})`;
    return [`(${param('keep_owners')} = 0\n    OR ${kept})`];
  };
  /** one condition per line */
  const where = (conditions: string[]): string => `WHERE ${conditions.join('\n  AND ')}`;
  const atVersion = (param: (name: string) => string): string =>
    `${version} = coalesce(${param('if_version')}, ${version})`;
  /**
   * the states the definition allows a write in (`update: { access, when }`), in its WHERE: one atomic check, which
   * your code's writes skip with `:any_state` = 1 (written first: PostgreSQL types it as the integer it is)
   */
  const inState = (when: When, param: (name: string) => string): string[] => {
    if (when.length === 0) return [];
    const anyState = param('any_state');
    const held = when.map((w) => whenCondition(ident(fieldNamed(resource, w.field).column), w.field, w.values, param));
    return [`(${anyState} = 1\n    OR ${held.length === 1 ? held.join('') : `(${held.join(' AND ')})`})`];
  };
  const update = (set: string[], conditions: string[]): string =>
    [
      `UPDATE ${table}`,
      `SET`,
      [...set, `${version} = ${version} + 1`].map((a) => `  ${a}`).join(',\n'),
      where(conditions),
      `RETURNING ${selectList}`,
    ].join('\n');

  const get = parameters();
  const getSql = [`SELECT ${selectList}`, `FROM ${table}`, where(byId(get.param))].join('\n');

  const insert = parameters();
  const insertColumns: [string, string][] = [
    ...(resource.id === 'uuid' ? [['id', 'id'] as [string, string]] : []),
    ...writtenFields(resource).map((f): [string, string] => [f.column, f.name]),
    ['created_at', 'created_at'],
    ['updated_at', 'updated_at'],
  ];
  const insertSql = [
    `INSERT INTO ${table} (${insertColumns.map(([c]) => ident(c)).join(', ')})`,
    `VALUES (${insertColumns.map(([, name]) => insert.param(name)).join(', ')})`,
    `RETURNING ${selectList}`,
  ].join('\n');

  const replace = parameters();
  // an owner field left out of a PUT keeps its owner (NULL parameter)
  const replaced = (f: Field): string => `coalesce(${replace.param(f.name)}, ${ident(f.column)})`;
  const replaceSql = update(
    [
      ...writableFields(resource).map((f) =>
        owners.includes(f.column)
          ? `${ident(f.column)} = ${replaced(f)}`
          : `${ident(f.column)} = ${replace.param(f.name)}`,
      ),
      `${ident('updated_at')} = ${replace.param('updated_at')}`,
    ],
    [
      ...byId(replace.param),
      atVersion(replace.param),
      ...inState(resource.writableWhen.update, replace.param),
      ...keepsOwners(replace.param, replaced),
    ],
  );

  const patch = parameters();
  const patched = (f: Field): string =>
    patchedUnlessNull(f)
      ? `coalesce(${patch.param(f.name)}, ${ident(f.column)})`
      : `CASE WHEN ${patch.param(`given_${f.name}`)} = 1 THEN ${patch.param(f.name)} ELSE ${ident(f.column)} END`;
  const patchSql = update(
    [
      // the read-only fields too: a PATCH never gives them (its schema refuses them), your code's patch may
      ...writtenFields(resource).map((f) => `${ident(f.column)} = ${patched(f)}`),
      `${ident('updated_at')} = ${patch.param('updated_at')}`,
    ],
    [
      ...byId(patch.param),
      atVersion(patch.param),
      ...inState(resource.writableWhen.update, patch.param),
      ...keepsOwners(patch.param, patched),
    ],
  );

  const remove = parameters();
  const removeWhere = where([
    ...byId(remove.param),
    atVersion(remove.param),
    ...inState(resource.writableWhen.delete, remove.param),
  ]);
  const removeSql = [
    `DELETE FROM ${table}`,
    removeWhere,
    // the row removed: whole for its event, else its id (Store.write reads a row either way)
    `RETURNING ${events ? selectList : ident('id')}`,
  ].join('\n');
  const deletable: StatementText[] = deleteReaches
    ? [
        {
          key: 'deletable',
          doc: 'Whether the delete would remove the record: asked before what it reaches is read (db/cascade.ts).',
          sql: [`SELECT 1 FROM ${table}`, removeWhere].join('\n'),
          names: remove.names,
        },
      ]
    : [];

  return [
    { key: 'get', doc: 'One record by id.', sql: getSql, names: get.names },
    { key: 'insert', doc: 'A new record.', sql: insertSql, names: insert.names },
    {
      key: 'update',
      doc: 'Every writable field, guarded by an optional expected version.',
      sql: replaceSql,
      names: replace.names,
    },
    {
      key: 'patch',
      doc: 'A JSON Merge Patch in one statement: a field not given keeps its value.',
      sql: patchSql,
      names: patch.names,
    },
    {
      key: 'delete',
      doc: 'One record by id, guarded by an optional expected version.',
      sql: removeSql,
      names: remove.names,
    },
    ...deletable,
    ...resource.actions
      .filter((a) => a.set.length > 0)
      .map((action) => {
        const p = parameters();
        const column = (name: string): string => ident(fieldNamed(resource, name).column);
        const sql = update(
          [
            ...action.set.map((s) => `${column(s.field)} = ${p.param(s.field)}`),
            `${ident('updated_at')} = ${p.param('updated_at')}`,
          ],
          [
            ...byId(p.param),
            atVersion(p.param),
            ...action.when.map((w) => whenCondition(column(w.field), w.field, w.values, p.param)),
            ...keepsOwners(p.param, (f) => p.param(f.name), ownersSetBy(resource, action)),
          ],
        );
        return { key: action.names.camel, action: action.names.camel, doc: actionDoc(action), sql, names: p.names };
      }),
  ];
}

/** The client-written owner fields a `set` action writes: a caller who is not staff may run it only where it keeps them. */
export function ownersSetBy(resource: Resource, action: Action): Field[] {
  return action.set.flatMap((s) => {
    const field = fieldNamed(resource, s.field);
    return resource.owners.includes(field.name) ? [field] : [];
  });
}

function actionDoc(action: Action): string {
  const when = action.when.map((w) => w.field);
  const where = when.length === 0 ? '' : `, where ${when.join(' and ')} ${when.length === 1 ? 'allows' : 'allow'} it`;
  return `What the ${action.name} action does: sets ${action.set.map((s) => s.field).join(', ')}${where}.`;
}

/** `when` of one field: its column holds one of the values (`when_<field>_<n>`), or is NULL where null is one. */
function whenCondition(
  column: string,
  field: string,
  values: readonly unknown[],
  param: (name: string) => string,
): string {
  const listed = values.filter((v) => v !== null);
  const inList =
    listed.length === 0
      ? undefined
      : `${column} IN (${listed.map((_, i) => param(`when_${field}_${i + 1}`)).join(', ')})`;
  if (listed.length === values.length) return inList ?? 'FALSE';
  return inList === undefined ? `${column} IS NULL` : `(${inList} OR ${column} IS NULL)`;
}

export function fieldNamed(resource: Resource, name: string): Field {
  const field = resource.fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`no field ${name} in ${resource.name}: the definition was not validated`);
  return field;
}
