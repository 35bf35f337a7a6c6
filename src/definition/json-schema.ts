/** The JSON Schema of the definition format, for editors (`restsmith schema`), derived from the zod schema. */
import * as z from 'zod';
import { definitionSchema } from './schema.js';

export const DEFINITION_SCHEMA_ID = 'urn:restsmith:definition';

/**
 * A JSON Schema (draft 2020-12) describing the definition format. It checks structure only: the
 * semantic rules (known roles, existing `ref` targets…) are checked by `restsmith validate`.
 */
export function definitionJsonSchema(): object {
  const generated = z.toJSONSchema(definitionSchema, { target: 'draft-2020-12', io: 'input' });
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: DEFINITION_SCHEMA_ID,
    title: 'restsmith resource definition',
    ...withoutDialect(generated),
  };
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...schema };
  delete rest.$schema;
  return rest;
}
