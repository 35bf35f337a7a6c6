import { EQUALITY, TEXT_COLUMN, type FieldTypeModule } from './field-type.js';

/** One of a list of strings (`values`), stored as the string; a literal outside the list is its option's problem. */
export const enumType: FieldTypeModule = {
  column: TEXT_COLUMN,
  schema: (field) => ({ type: 'string', enum: field.values ?? [] }),
  tsType: (field, _, literal) => (field.values ?? []).map(literal).join(' | '),
  decoder: (field) => ({ name: 'member', args: field.values ?? [] }),
  sample: (field, n) => field.values?.[n % field.values.length] ?? null,
  filtering: (field) => ({ kind: 'text', operators: EQUALITY, value: { type: 'string', enum: field.values ?? [] } }),
  widensTo: ['string', 'text'],
};
