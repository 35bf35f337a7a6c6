import { targetIdOf, typeOf } from '../field-types/index.js';
import type { Api, Field, JsonValue } from '../model.js';
import { asReturned } from '../contract/returned.js';
import { isNotNull } from '../schema/columns.js';
import { patchTakesNull } from '../contract/json-schemas.js';
import { code, plain, type Code, type Symbol } from './code.js';
import { PRETTIER_OPTIONS } from './project-files.js';
import { rt } from './symbols.js';
import { js, tsString } from './literal.js';

/**
 * `export type name = left & right;` as prettier prints it: on one line when it fits, else broken after the `&` when
 * both lines fit; else on one line, too long (prettier formats the file then: pipeline/shape.ts)
 */
export function intersectionAlias(name: string, left: string, right: string): string {
  const flat = `export type ${name} = ${left} & ${right};`;
  const first = `export type ${name} = ${left} &`;
  const second = `  ${right};`;
  const fits = (line: string): boolean => line.length <= PRETTIER_OPTIONS.printWidth;
  return fits(flat) || !fits(first) || !fits(second) ? flat : `${first}\n${second}`;
}

export { idType } from '../field-types/index.js';

/** The TypeScript type of a field's value, without null. */
export const valueType = (api: Api, field: Field): string =>
  typeOf(field).tsType(field, targetIdOf(api, field), tsString);

const orNull = (type: string): string => `${type} | null`;

/** The type of a field in a record the API returns. */
export const outputType = (api: Api, field: Field): string =>
  isNotNull(field) ? valueType(api, field) : orNull(valueType(api, field));

/** The type of a field in a request body. */
export const inputType = (api: Api, field: Field): string =>
  field.nullable ? orNull(valueType(api, field)) : valueType(api, field);

/** The type of a field in a PATCH body. */
export const patchType = (api: Api, field: Field, owners: readonly string[]): string =>
  patchTakesNull(field, owners) ? orNull(valueType(api, field)) : valueType(api, field);

const codec = rt.codec;

/** The expression that decodes a field from `row` (see the generated db/codec.ts). */
export function decodeExpression(api: Api, field: Field, column = `row.${field.column}`): Code {
  const { decoder, rest } = decoderOf(api, field);
  if (isNotNull(field)) return code`${decoder}(${column}${rest})`;
  const orNull = codec('orNull');
  return rest === ''
    ? code`${orNull}(${column}, ${decoder})`
    : code`${orNull}(${column}, (value) => ${decoder}(value${rest}))`;
}

/** The codec function that decodes a column of the field, and its arguments after the value. */
function decoderOf(api: Api, field: Field): { decoder: Symbol; rest: string } {
  const { name, args } = typeOf(field).decoder(field, targetIdOf(api, field));
  return { decoder: codec(name), rest: args === undefined ? '' : `, ${js(args)} as const` };
}

/** The codec function that encodes the field's value as a column value, if it needs one. */
function encoderOf(field: Field): Symbol | undefined {
  const name = typeOf(field).encoder;
  return name === undefined ? undefined : codec(name);
}

/** The expression that encodes a field of `input` as a column value, its default applied when omitted. */
export function encodeExpression(field: Field, source: string): Code {
  const member = `${source}.${field.name}`;
  const value = field.required
    ? plain(member)
    : field.default === undefined
      ? plain(`${member} ?? null`)
      : code`${codec('orDefault')}(${member}, ${js(field.default)})`;
  const encoder = encoderOf(field);
  return encoder === undefined ? value : code`${encoder}(${value})`;
}

/**
 * The two parameters of a field in the one-statement PATCH (see sql/statements.ts): whether it was given, and its
 * column value. A json object was merged with the stored value before (see the store).
 */
export function patchExpressions(field: Field, source: string): { given: Code; value: Code } {
  const member = `${source}.${field.name}`;
  // null removes the value, as leaving the field out of a PUT does: a field that cannot be null takes its default
  const resets = !field.nullable && field.default !== undefined && field.default !== null;
  const encoder = encoderOf(field);
  const encoded = encoder === undefined ? plain(`${member} ?? null`) : code`${encoder}(${member} ?? null)`;
  const value = !resets
    ? encoded
    : field.type === 'json'
      ? code`${codec('toJson')}(${member} === null ? ${js(field.default)} : (${member} ?? null))`
      : // as prettier prints it: `??` in a branch of a conditional in parentheses
        code`${member} === null ? ${encodeLiteral(field, field.default)} : ${encoder === undefined ? plain(`(${member} ?? null)`) : encoded}`;
  return { given: code`${codec('given')}(${member})`, value };
}

/** The value a server-set (read-only) field takes on insert: its default, or NULL. */
export function insertDefault(field: Field): string {
  return field.default === undefined ? 'null' : encodeLiteral(field, field.default);
}

/** A literal of the definition (a `set` or `when` value) as the column value it is stored as. */
export function encodeLiteral(field: Field, value: unknown): string {
  if (value === null) return 'null';
  if (field.type === 'boolean') return value === true ? '1' : '0';
  if (field.type === 'json') return js(JSON.stringify(value));
  // a datetime in UTC, as records hold it
  return js(asReturned(field, value as JsonValue));
}

/** A field's doc comment on every type that holds it: its description, and `@deprecated` (struck through in editors). */
export function docOf(f: Field): string | undefined {
  return [f.description, f.deprecated === true ? '@deprecated' : undefined].filter(Boolean).join(' ') || undefined;
}
