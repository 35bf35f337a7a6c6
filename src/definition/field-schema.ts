/**
 * The zod schema of one field: a type-name shorthand (`name: string`) or a map with `type` and the
 * options of that type. Each type is a strict object, so an option of another type is rejected.
 */
import * as z from 'zod';
import { fieldName, formatOf, type FormatOf } from '../field-types/index.js';
import { FIELD_TYPES, type FieldType } from '../model.js';

export { FIELD_NAME, fieldName } from '../field-types/index.js';

/** Options every field type accepts; `default` is added per type so that its value is typed. */
const commonOptions = {
  required: z.boolean().optional().describe('Must be present on create and on PUT (default false).'),
  nullable: z.boolean().optional().describe('May be null (default false).'),
  unique: z.boolean().optional().describe('No two records may hold the same value (default false).'),
  index: z
    .union([z.boolean(), z.literal('trigram')])
    .optional()
    .describe(
      'Create a database index on this field (default false); `trigram` (string and text fields) makes `contains` index-served instead.',
    ),
  readOnly: z
    .boolean()
    .optional()
    .describe('Set only by the server or by actions; a client that sends it gets a 400 (default false).'),
  writeOnly: z.boolean().optional().describe('Accepted in requests, never returned (default false).'),
  description: z.string().optional().describe('Documentation, copied into the OpenAPI document.'),
  deprecated: z
    .boolean()
    .optional()
    .describe('Still accepted and returned, marked deprecated in the OpenAPI document and the types (default false).'),
  renamedFrom: fieldName
    .optional()
    .describe('The previous name of this field, so that the migration renames the column and keeps its data.'),
  computed: z
    .boolean()
    .optional()
    .describe(
      'Never stored or accepted: its value (or null) comes from your function in src/computed/<collection>.ts (default false).',
    ),
};

function fieldOf<T extends FieldType, S extends z.ZodType, O extends z.ZodRawShape>(
  type: T,
  defaultValue: S,
  options: O,
  description: string,
) {
  return z
    .strictObject({
      type: z.literal(type).describe(description),
      ...commonOptions,
      default: defaultValue.optional().describe('Value used when a create request omits the field.'),
      ...options,
    })
    .describe(`A field of type ${type}: ${description}`);
}

type SchemaOf<T extends FieldType> =
  FormatOf<T> extends { default: infer D extends z.ZodType; options: infer O extends z.ZodRawShape }
    ? ReturnType<typeof fieldOf<T, D, O>>
    : never;
type AnyFieldSchema = { [T in FieldType]: SchemaOf<T> }[FieldType];

/** The schema of a field of each type: its module's part of the format (field-types/), with the options all share. */
export const FIELD_SCHEMAS = Object.fromEntries(
  FIELD_TYPES.map((type) => {
    const { summary, default: value, options } = formatOf(type);
    return [type, fieldOf(type, value, options, summary)];
  }),
) as { [T in FieldType]: SchemaOf<T> };

export const fieldObjectSchema = z
  .discriminatedUnion('type', FIELD_TYPES.map((type) => FIELD_SCHEMAS[type]) as [AnyFieldSchema, ...AnyFieldSchema[]])
  .describe('A field with options.');

/** Types that need no option, so that they can be written as a bare type name. */
export const SHORTHAND_TYPES = FIELD_TYPES.filter(
  (type): type is Exclude<FieldType, 'enum' | 'ref'> => type !== 'enum' && type !== 'ref',
);

export const fieldSchema = z
  .union([z.enum(SHORTHAND_TYPES).describe('Shorthand for { type: <this> }.'), fieldObjectSchema])
  .describe('A field: a type name, or a map with `type` and options.');

export type FieldObject = z.output<typeof fieldObjectSchema>;
export type FieldDef = z.output<typeof fieldSchema>;

/** The map form of a field, whichever way it was written. */
export function expandField(field: FieldDef): FieldObject {
  return typeof field === 'string' ? { type: field } : field;
}

export function isFieldType(value: unknown): value is FieldType {
  return typeof value === 'string' && (FIELD_TYPES as readonly string[]).includes(value);
}

/** Every option key a field of `type` accepts (besides `type`). */
export function optionsOf(type: FieldType): string[] {
  return Object.keys(FIELD_SCHEMAS[type].shape).filter((key) => key !== 'type');
}

/** Every option key of any field type. */
export const ALL_FIELD_OPTIONS: ReadonlySet<string> = new Set(FIELD_TYPES.flatMap(optionsOf));
