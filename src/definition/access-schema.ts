/** Access rules in the definition format (SPEC §4): per operation, a rule or `{ access, when }`. */
import * as z from 'zod';
import { fieldName } from './field-schema.js';
import { namedMap, ROLE_NAME } from './schema-names.js';

const accessTerm = z
  .string()
  .regex(ROLE_NAME, { error: 'use public, authenticated, owner or a role name' })
  .describe('public | authenticated | owner | a role name');

export const accessRuleSchema = z
  .union([accessTerm, z.array(accessTerm).min(1)])
  .describe(
    'Who may do this: public, authenticated, owner, a role, or a list of these (any of which grants). The admin role always passes.',
  );

const operationAccess = (op: string) =>
  accessRuleSchema.optional().describe(`Access rule for ${op} (default: auth.default).`);

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** `when` of an item action, or of an update or delete rule: field → the value, or the values, it must hold. */
export const whenSchema = namedMap(fieldName, z.union([scalar, z.array(scalar).min(1)]));

/** update and delete: a rule, or a rule with a condition on the stored record (`{ access, when }`). */
const guardedAccess = (op: string) =>
  z
    .union([
      accessRuleSchema,
      z.strictObject({
        access: accessRuleSchema.optional().describe(`Who may ${op} (default: auth.default).`),
        when: whenSchema.describe(
          `The states in which a record may be written: field → value or values it must hold, else 409 (checked in the same statement as the write).`,
        ),
      }),
    ])
    .optional()
    .describe(`Access rule for ${op} (default: auth.default), or { access, when } to allow it only in some states.`);

export const accessSchema = z
  .strictObject({
    list: operationAccess('GET /{collection}'),
    read: operationAccess('GET /{collection}/{id}'),
    create: operationAccess('POST /{collection}'),
    update: guardedAccess('PUT and PATCH /{collection}/{id}'),
    delete: guardedAccess('DELETE /{collection}/{id}'),
  })
  .describe('Access rule per operation.');
