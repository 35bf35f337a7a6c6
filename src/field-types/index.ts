import type { Api, Field, FieldType, IdKind } from '../model.js';
import { boolean } from './boolean.js';
import { date } from './date.js';
import { datetime } from './datetime.js';
import { enumType } from './enum.js';
import type { FieldTypeModule } from './field-type.js';
import { integer } from './integer.js';
import { json } from './json.js';
import { number } from './number.js';
import { ref } from './ref.js';
import { string } from './string.js';
import { text } from './text.js';
import { uuid } from './uuid.js';

export type { Decoder, Dialect, Encoder, FieldTypeModule, Filtering, JsonSchema } from './field-type.js';
export { EQUALITY, idSchema, idType, ORDERED } from './field-type.js';
export { isDate } from './date.js';
export { FIELD_NAME, fieldName } from './options.js';
export { UUID } from './uuid.js';

const modules = {
  string,
  text,
  integer,
  number,
  boolean,
  date,
  datetime,
  uuid,
  enum: enumType,
  json,
  ref,
} as const satisfies Readonly<Record<FieldType, FieldTypeModule>>;

/** Every field type's module, by its name in the definition. */
export const FIELD_TYPE: Readonly<Record<FieldType, FieldTypeModule>> = modules;

/** A type's part of the definition format, typed as its module writes it (definition/field-schema.ts reads it). */
export type FormatOf<T extends FieldType> = (typeof modules)[T]['definition'];
export const formatOf = <T extends FieldType>(type: T): FormatOf<T> => modules[type].definition;

/** The module of a field's type. */
export const typeOf = (field: Pick<Field, 'type'>): FieldTypeModule => FIELD_TYPE[field.type];

/** The kind of id a field's values are when it is a ref (the target's), else the default: what modules are given. */
export const targetIdOf = (api: Api, field: Field): IdKind =>
  field.ref === undefined ? 'uuid' : (api.resources.find((r) => r.name === field.ref?.to)?.id ?? 'uuid');
