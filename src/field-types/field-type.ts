import type * as z from 'zod';
import type { Field, IdKind, JsonValue } from '../model.js';

/**
 * What a field type is, everywhere restsmith uses it: one module per type (`string.ts`, `datetime.ts`…), collected in
 * `index.ts`. Adding a type is adding its module, registering it there and naming it in `FIELD_TYPES` (model.ts);
 * docs/architecture.md walks through one.
 */
export interface FieldTypeModule {
  /** its part of the definition format: what it is (in the docs and the editors' schema), its default, its options */
  definition: { summary: string; default: z.ZodType; options: z.ZodRawShape };
  /** its column's type in each dialect; `target` is the kind of id a ref's target has */
  column: Readonly<Record<Dialect, (target: IdKind) => string>>;
  /** the JSON Schema of a value a client sends, constraints included, without null */
  schema(field: Field, target: IdKind): JsonSchema;
  /** the TypeScript type of a value, without null; `literal` writes a string as a TypeScript literal */
  tsType(field: Field, target: IdKind, literal: (text: string) => string): string;
  /** the generated db/codec.ts function that decodes a column, and the values of its arguments after the column's */
  decoder(field: Field, target: IdKind): { name: Decoder; args?: JsonValue };
  /** the one that encodes a value as its column holds it, when the two differ */
  encoder?: Encoder;
  /** a valid value, varied by `n` (the examples of the document, the generated tests' fixtures); undefined: none */
  sample(field: Field, n: number): JsonValue | undefined;
  /** what a listing may filter and sort on: how its column compares, its operators, one value's schema */
  filtering(field: Field, target: IdKind): Filtering | undefined;
  /** the types a field of this type may become keeping every stored value (a migration's data loss) */
  widensTo: readonly string[];
  /** a literal of the definition (a default, `when`, `set`) that a field of the type cannot hold, before its options */
  literal?: { accepts(value: unknown): boolean; expected: string };
}

export type Dialect = 'sqlite' | 'postgres';
export type JsonSchema = { [key: string]: unknown };
export type Decoder = 'numeric' | 'flag' | 'json' | 'member' | 'text';
export type Encoder = 'toFlag' | 'toJson' | 'toUtc';

/** What a listing can do with a field. */
export interface Filtering {
  /** how its column's values compare: as text, as instants, as numbers, as flags */
  kind: 'text' | 'datetime' | 'integer' | 'number' | 'boolean';
  operators: readonly string[];
  /** the schema of one value in the query string */
  value: JsonSchema;
}

export const ORDERED: readonly string[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'];
export const EQUALITY: readonly string[] = ['eq', 'ne', 'in'];

/** An id's schema: an integer that JavaScript holds exactly, or a UUID. */
export const idSchema = (kind: IdKind): JsonSchema =>
  kind === 'integer'
    ? { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }
    : { type: 'string', format: 'uuid' };

/** An id's TypeScript type. */
export const idType = (kind: IdKind): string => (kind === 'integer' ? 'number' : 'string');

/** A column of text: PostgreSQL's in the "C" collation, so that it compares, sorts and lower()s as SQLite's does. */
export const TEXT_COLUMN: FieldTypeModule['column'] = { sqlite: () => 'TEXT', postgres: () => 'TEXT COLLATE "C"' };
