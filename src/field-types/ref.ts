import * as z from 'zod';
import { fieldName, nullable } from './options.js';
import { EQUALITY, idSchema, idType, type FieldTypeModule } from './field-type.js';

/**
 * The id of a record of another resource (`to`), of the kind that resource's ids are; its samples are records the
 * generated tests make first, so it has none of its own.
 */
export const ref = {
  definition: {
    summary: 'the id of a record of another resource',
    default: nullable(z.union([z.string(), z.int()])),
    options: {
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
  },
  column: {
    sqlite: (target) => (target === 'integer' ? 'INTEGER' : 'TEXT'),
    postgres: (target) => (target === 'integer' ? 'BIGINT' : 'TEXT COLLATE "C"'),
  },
  schema: (_, target) => idSchema(target),
  tsType: (_, target) => idType(target),
  decoder: (_, target) => ({ name: target === 'integer' ? 'numeric' : 'text' }),
  sample: () => null,
  filtering: (_, target) => ({
    kind: target === 'integer' ? 'integer' : 'text',
    operators: EQUALITY,
    value: idSchema(target),
  }),
  widensTo: [],
} satisfies FieldTypeModule;
