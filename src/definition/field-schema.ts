/**
 * The zod schema of one field: a type-name shorthand (`name: string`) or a map with `type` and the
 * options of that type. Each type is a strict object, so an option of another type is rejected.
 */
import * as z from 'zod';
import { FIELD_TYPES, type FieldType } from '../model.js';
import { patternProblem } from '../patterns.js';

export const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;

export const fieldName = z
  .string()
  .regex(FIELD_NAME, { error: 'use camelCase: a lower-case letter, then letters and digits' });

function compilesAsRegExp(pattern: string, ctx: z.RefinementCtx): void {
  const problem = patternProblem(pattern);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
}

function uniqueStrings(values: string[], ctx: z.RefinementCtx): void {
  values.forEach((value, i) => {
    if (values.indexOf(value) !== i) {
      ctx.addIssue({ code: 'custom', path: [i], message: `"${value}" is listed twice` });
    }
  });
}

const length = z.int().min(0);

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

const nullable = <S extends z.ZodType>(schema: S) => schema.nullable();

export const FIELD_SCHEMAS = {
  string: fieldOf(
    'string',
    nullable(z.string()),
    {
      minLength: length.optional().describe('Minimum length in characters.'),
      maxLength: length.optional().describe('Maximum length in characters.'),
      pattern: z
        .string()
        .superRefine(compilesAsRegExp)
        .optional()
        .describe('A regular expression (JavaScript, unicode mode) the whole value must match.'),
      format: z.enum(['email', 'url']).optional().describe('A well-known format the value must have.'),
    },
    'a short string',
  ),
  text: fieldOf(
    'text',
    nullable(z.string()),
    {
      minLength: length.optional().describe('Minimum length in characters.'),
      maxLength: length.optional().describe('Maximum length in characters.'),
    },
    'a long string',
  ),
  integer: fieldOf(
    'integer',
    nullable(z.int()),
    {
      min: z.int().optional().describe('Smallest allowed value.'),
      max: z.int().optional().describe('Largest allowed value.'),
    },
    'a whole number',
  ),
  number: fieldOf(
    'number',
    nullable(z.number()),
    {
      min: z.number().optional().describe('Smallest allowed value.'),
      max: z.number().optional().describe('Largest allowed value.'),
    },
    'a floating-point number',
  ),
  boolean: fieldOf('boolean', nullable(z.boolean()), {}, 'true or false'),
  date: fieldOf(
    'date',
    nullable(z.iso.date({ error: 'use a date written YYYY-MM-DD' })),
    {},
    'a calendar date, YYYY-MM-DD',
  ),
  datetime: fieldOf(
    'datetime',
    nullable(z.iso.datetime({ offset: true, error: 'use an ISO 8601 date-time such as 2024-05-01T12:00:00Z' })),
    {},
    'an instant, ISO 8601, returned in UTC',
  ),
  uuid: fieldOf('uuid', nullable(z.uuid({ error: 'use a UUID' })), {}, 'a UUID'),
  enum: fieldOf(
    'enum',
    nullable(z.string()),
    {
      values: z.array(z.string().min(1)).min(1).superRefine(uniqueStrings).describe('The allowed values.'),
    },
    'one of a list of strings',
  ),
  json: fieldOf('json', z.json(), {}, 'any JSON value'),
  ref: fieldOf(
    'ref',
    nullable(z.union([z.string(), z.int()])),
    {
      to: z.string().describe('The resource (collection name) this field refers to.'),
      onDelete: z
        .enum(['restrict', 'cascade', 'setNull'])
        .optional()
        .describe(
          'What deleting the referenced record does: refuse (restrict, default), delete this record too (cascade), or clear this field (setNull).',
        ),
      as: fieldName
        .optional()
        .describe(
          'The name of the to-one relation this field makes (default: the field name without its Id suffix, e.g. authorId → author).',
        ),
      inverse: fieldName
        .optional()
        .describe(
          'The name of the to-many relation this field makes on the referred-to resource (default: this collection in camelCase, e.g. books).',
        ),
    },
    'the id of a record of another resource',
  ),
} as const;

export const fieldObjectSchema = z
  .discriminatedUnion('type', [
    FIELD_SCHEMAS.string,
    FIELD_SCHEMAS.text,
    FIELD_SCHEMAS.integer,
    FIELD_SCHEMAS.number,
    FIELD_SCHEMAS.boolean,
    FIELD_SCHEMAS.date,
    FIELD_SCHEMAS.datetime,
    FIELD_SCHEMAS.uuid,
    FIELD_SCHEMAS.enum,
    FIELD_SCHEMAS.json,
    FIELD_SCHEMAS.ref,
  ])
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
