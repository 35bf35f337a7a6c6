import { EQUALITY, idSchema, type FieldTypeModule } from './field-type.js';

/**
 * The id of a record of another resource (`to`), of the kind that resource's ids are; its samples are records the
 * generated tests make first, so it has none of its own.
 */
export const ref: FieldTypeModule = {
  column: {
    sqlite: (target) => (target === 'integer' ? 'INTEGER' : 'TEXT'),
    postgres: (target) => (target === 'integer' ? 'BIGINT' : 'TEXT COLLATE "C"'),
  },
  schema: (_, target) => idSchema(target),
  tsType: (_, target) => (target === 'integer' ? 'number' : 'string'),
  decoder: (_, target) => ({ name: target === 'integer' ? 'numeric' : 'text' }),
  sample: () => null,
  filtering: (_, target) => ({
    kind: target === 'integer' ? 'integer' : 'text',
    operators: EQUALITY,
    value: idSchema(target),
  }),
  widensTo: [],
};
