import type { Api, Field, IdKind } from '../model.js';
import { isNotNull } from '../schema/columns.js';
import { patchTakesNull } from '../contract/json-schemas.js';

/** A string literal, escaped, for emitted TypeScript. */
export const js = (value: unknown): string => JSON.stringify(value) ?? 'undefined';

export const idType = (kind: IdKind): string => (kind === 'integer' ? 'number' : 'string');

/** The TypeScript type of a field's value, without null. */
export function valueType(api: Api, field: Field): string {
  switch (field.type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return (field.values ?? []).map(js).join(' | ');
    case 'json':
      return 'JsonValue';
    case 'ref':
      return idType(api.resources.find((r) => r.name === field.ref?.to)?.id ?? 'uuid');
    default:
      return 'string';
  }
}

const orNull = (type: string): string => `${type} | null`;

/** The type of a field in a record the API returns. */
export const outputType = (api: Api, field: Field): string =>
  isNotNull(field) ? valueType(api, field) : orNull(valueType(api, field));

/** The type of a field in a request body. */
export const inputType = (api: Api, field: Field): string =>
  field.nullable ? orNull(valueType(api, field)) : valueType(api, field);

/** The type of a field in a PATCH body. */
export const patchType = (api: Api, field: Field, owner: string | undefined): string =>
  patchTakesNull(field, owner) ? orNull(valueType(api, field)) : valueType(api, field);

/** The expression that decodes a field from `row` (see the generated db/codec.ts). */
export function decodeExpression(api: Api, field: Field): string {
  const column = `row.${field.column}`;
  if (isNotNull(field)) return decode(api, field, column);
  const inner = decode(api, field, 'value');
  const plain = /^(\w+)\(value\)$/.exec(inner)?.[1];
  return `orNull(${column}, ${plain ?? `(value) => ${inner}`})`;
}

function decode(api: Api, field: Field, value: string): string {
  switch (field.type) {
    case 'integer':
    case 'number':
      return `numeric(${value})`;
    case 'boolean':
      return `flag(${value})`;
    case 'json':
      return `json(${value})`;
    case 'enum':
      return `member(${value}, ${js(field.values ?? [])} as const)`;
    case 'ref':
      return valueType(api, field) === 'number' ? `numeric(${value})` : `text(${value})`;
    default:
      return `text(${value})`;
  }
}

/** The expression that encodes a field of `input` as a column value, its default applied when omitted. */
export function encodeExpression(field: Field, source: string): string {
  const member = `${source}.${field.name}`;
  const value = field.required
    ? member
    : field.default === undefined
      ? `${member} ?? null`
      : `orDefault(${member}, ${js(field.default)})`;
  switch (field.type) {
    case 'boolean':
      return `toFlag(${value})`;
    case 'json':
      return `toJson(${value})`;
    case 'datetime':
      return `toUtc(${value})`;
    default:
      return value;
  }
}

/** The parameters of a field in the one-statement PATCH (see sql/statements.ts): present?, value (json: mode, value, patch). */
export function patchExpression(field: Field, source: string): string {
  const member = `${source}.${field.name}`;
  // null removes the value, as leaving the field out of a PUT does: a field that cannot be null takes its default
  const resets = !field.nullable && field.default !== undefined && field.default !== null;
  if (field.type === 'json')
    return `...jsonPatch(${resets ? `${member} === null ? ${js(field.default)} : ${member}` : member})`;
  const value =
    field.type === 'boolean' ? `toFlag(${member})` : field.type === 'datetime' ? `toUtc(${member})` : member;
  const stored = resets ? `${member} === null ? ${encodeLiteral(field, field.default)} : ${value}` : value;
  return `...(${member} === undefined ? ABSENT : [1, ${stored}])`;
}

/** The value a server-set (read-only) field takes on insert: its default, or NULL. */
export function insertDefault(field: Field): string {
  return field.default === undefined ? 'null' : encodeLiteral(field, field.default);
}

/** The codec helpers an expression uses, so that a store imports exactly those. */
export function codecNames(expressions: readonly string[]): string[] {
  const all = [
    'text',
    'numeric',
    'flag',
    'json',
    'member',
    'orNull',
    'orDefault',
    'toFlag',
    'toJson',
    'toUtc',
    'subjectAsId',
    'jsonPatch',
    'merges',
    'mergePatch',
    'ABSENT',
  ];
  const used = all.filter((name) => expressions.some((e) => new RegExp(`\\b${name}\\b`).test(e)));
  return [...new Set(['numeric', 'now', ...used])].sort();
}

/** A literal of the definition (a `set` or `when` value) as the column value it is stored as. */
export function encodeLiteral(field: Field, value: unknown): string {
  if (value === null) return 'null';
  if (field.type === 'boolean') return value === true ? '1' : '0';
  if (field.type === 'json') return js(JSON.stringify(value));
  if (field.type === 'datetime' && typeof value === 'string') return js(new Date(value).toISOString());
  return js(value);
}
