/**
 * The definition format (SPEC §2), described once, with zod. Validation, the `Definition` type and the
 * JSON Schema for editors (`restsmith schema`) are all derived from this schema. Structure and the
 * shape of single values live here; rules that relate several values (a `ref` to an existing resource,
 * a known role, a default within `min`/`max`…) are in semantic-checks.ts.
 */
import * as z from 'zod';
import { isDate } from '../field-types/index.js';
import { OPERATIONS } from '../model.js';
import { accessRuleSchema, accessSchema, whenSchema } from './access-schema.js';
import { fieldName, fieldSchema } from './field-schema.js';
import { API_NAME, kebabName, namedMap, noDuplicates, PREFIX, RESOURCE_NAME } from './schema-names.js';
import { authSchema, corsSchema, eventsSchema, limitsSchema, problemsSchema } from './settings-schema.js';
import { isWebUrl } from './values.js';

export { fieldSchema, fieldObjectSchema, expandField, type FieldDef, type FieldObject } from './field-schema.js';
export { API_NAME, RESOURCE_NAME, ACTION_NAME, ROLE_NAME, PREFIX } from './schema-names.js';
export { accessRuleSchema } from './access-schema.js';
export { PROBLEMS_BASE } from './settings-schema.js';

// ── deprecation ──────────────────────────────────────────────────────────────────────────────────────

const calendarDate = z
  .string()
  .refine(isDate, {
    error: (issue) => `${JSON.stringify(issue.input)} is not a real date: use YYYY-MM-DD, like 2026-11-01`,
  })
  .describe('A date: YYYY-MM-DD (UTC).');

const deprecationSchema = z
  .strictObject({
    since: calendarDate.describe('When it was deprecated (the Deprecation header, RFC 9745): YYYY-MM-DD.'),
    sunset: calendarDate
      .optional()
      .describe('When it will stop answering (the Sunset header, RFC 8594): YYYY-MM-DD, after since.'),
    link: z
      .string()
      .refine(isWebUrl, { error: (issue) => `${JSON.stringify(issue.input)} is not an http or https URL` })
      .optional()
      .describe('A page that explains the deprecation and what to use instead (Link; rel="deprecation").'),
  })
  .superRefine((deprecation, ctx) => {
    const { since, sunset } = deprecation;
    if (sunset !== undefined && isDate(since) && isDate(sunset) && sunset <= since) {
      ctx.addIssue({
        code: 'custom',
        path: ['sunset'],
        message: `the sunset must come after since (${since})`,
      });
    }
  })
  .describe(
    'Deprecated: every response carries Deprecation, and Sunset and Link when given; the OpenAPI document says so.',
  );

// ── actions ──────────────────────────────────────────────────────────────────────────────────────────

const actionSchema = z
  .strictObject({
    on: z
      .enum(['item', 'collection'])
      .describe('item: POST /{collection}/{id}/{action}; collection: POST /{collection}/{action}.'),
    method: z
      .enum(['post', 'get'])
      .optional()
      .describe(
        'post (default): a POST with a JSON body; get: a read-only GET, its input as query parameters, answered by a handler.',
      ),
    access: accessRuleSchema.optional().describe('Who may run the action (default: auth.default).'),
    when: whenSchema
      .optional()
      .describe('Precondition on the stored record: field → value or list of values it must hold, else 409.'),
    set: namedMap(fieldName, z.json())
      .optional()
      .describe('Assignments made atomically with the `when` check: field → value, or `now` for a date/datetime.'),
    input: z
      .strictObject({ fields: namedMap(fieldName, fieldSchema).describe('The fields of the request body.') })
      .optional()
      .describe('The request body the action accepts.'),
    description: z.string().optional().describe('Documentation, copied into the OpenAPI document.'),
    deprecated: deprecationSchema.optional(),
  })
  .describe('An action. Without `set`, the generator writes a handler stub in a user-owned file.');

// ── resources ────────────────────────────────────────────────────────────────────────────────────────

// ── relations and keys ───────────────────────────────────────────────────────────────────────────────

const throughRelationSchema = z
  .strictObject({
    through: kebabName().describe('The join resource: it holds one ref to this resource and one to the other.'),
    via: z
      .tuple([fieldName, fieldName])
      .optional()
      .describe(
        "The join resource's ref fields [to this resource, to the other], when it holds more than one ref to either.",
      ),
    inverse: fieldName
      .optional()
      .describe('The name of the many-to-many relation on the other resource (default: this collection in camelCase).'),
  })
  .describe('A many-to-many relation through a join resource, whose records are the links.');

const uniqueKeySchema = z
  .array(fieldName)
  .min(1)
  .superRefine(noDuplicates)
  .describe('The fields of one key: no two records have the same values in all of them.');

const resourceSchema = z
  .strictObject({
    id: z
      .enum(['uuid', 'integer'])
      .optional()
      .describe('uuid (default, generated as UUIDv7) or integer (auto-increment).'),
    owner: z
      .union([z.string(), z.array(z.string()).min(1)])
      .optional()
      .describe(
        'The field (or `id`) compared with the token subject by the `owner` access rule, or several fields ' +
          '(e.g. [patientId, doctorId]): the rule admits a caller who is any of them.',
      ),
    fields: namedMap(fieldName, fieldSchema).describe(
      'The fields of a record. Every record also has id, createdAt and updatedAt.',
    ),
    access: accessSchema.optional(),
    operations: z
      .array(z.enum(OPERATIONS))
      .superRefine(noDuplicates)
      .optional()
      .describe('The operations switched on (default: all five).'),
    actions: namedMap(kebabName(), actionSchema)
      .optional()
      .describe('Custom operations, keyed by name (the last path segment).'),
    relations: namedMap(fieldName, throughRelationSchema)
      .optional()
      .describe('Many-to-many relations, keyed by name (camelCase): `tags: { through: book-tags }`.'),
    unique: z
      .array(uniqueKeySchema)
      .min(1)
      .optional()
      .describe('Unique keys over several fields, e.g. [[bookId, tagId]].'),
    description: z.string().optional().describe('Documentation, copied into the OpenAPI document.'),
    deprecated: deprecationSchema.optional(),
    renamedFrom: z
      .string()
      .regex(RESOURCE_NAME, { error: 'a resource name: lowercase letters, digits and -, starting with a letter' })
      .optional()
      .describe('The previous name of the resource: its table, rows and the refs to it are kept, renamed.'),
  })
  .describe('A resource, served at /{collection}.');

// ── the whole definition ─────────────────────────────────────────────────────────────────────────────
export const definitionSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this format, for editors; ignored.'),
    name: z
      .string()
      .max(214)
      .regex(API_NAME, { error: "use lower-case letters, digits and '-', starting with a letter" })
      .describe('The npm package name of the generated project.'),
    version: z.string().min(1).describe('The API version (OpenAPI info.version), e.g. 1.0.0.'),
    title: z.string().optional().describe('Human-readable title (OpenAPI info.title; default: the name).'),
    description: z.string().optional().describe('Documentation, copied into the OpenAPI document.'),
    prefix: z
      .string()
      .regex(PREFIX, { error: 'start with / and do not end with /, e.g. /api/v1' })
      .optional()
      .describe('Common path prefix of every route, e.g. /api/v1.'),
    auth: authSchema.optional(),
    limits: limitsSchema.optional(),
    cors: corsSchema.optional(),
    events: eventsSchema.optional(),
    problems: problemsSchema.optional(),
    resources: namedMap(kebabName(), resourceSchema)
      .refine((resources) => Object.keys(resources).length > 0, { error: 'define at least one resource' })
      .describe('The resources, keyed by collection name (conventionally plural), e.g. posts.'),
  })
  .describe('A restsmith resource definition.');

export type Definition = z.output<typeof definitionSchema>;
export type ResourceDef = z.output<typeof resourceSchema>;
export type ActionDef = z.output<typeof actionSchema>;
export type AccessRuleDef = z.output<typeof accessRuleSchema>;
export type AccessDef = z.output<typeof accessSchema>;
export type AuthDef = z.output<typeof authSchema>;
export type LimitsDef = z.output<typeof limitsSchema>;
export type ThroughRelationDef = z.output<typeof throughRelationSchema>;

/** The per-key schemas, for checking parts of a definition that is broken elsewhere. */
export const parts = {
  definition: definitionSchema.shape,
  resource: resourceSchema.shape,
  action: actionSchema.shape,
  relation: throughRelationSchema.shape,
  access: accessSchema.shape,
} as const;

/** Keys each kind of map accepts, for "did you mean" on unknown keys. */
export const KNOWN_KEYS = {
  definition: Object.keys(definitionSchema.shape),
  auth: Object.keys(authSchema.shape),
  limits: Object.keys(limitsSchema.shape),
  cors: ['origins', 'credentials', 'maxAge'],
  events: ['retention', 'webhooks', 'retry'],
  problems: ['base'],
  retry: ['attempts', 'firstDelay'],
  deprecated: ['since', 'sunset', 'link'],
  pageSize: ['default', 'max'],
  rateLimit: ['max', 'window'],
  resource: Object.keys(resourceSchema.shape),
  access: Object.keys(accessSchema.shape),
  guardedAccess: ['access', 'when'],
  action: Object.keys(actionSchema.shape),
  input: ['fields'],
  relation: Object.keys(throughRelationSchema.shape),
} as const;

type AccessEntry = AccessDef[keyof AccessDef];
export type WhenDef = z.output<typeof whenSchema>;

/** An operation's access entry, a rule or `{ access, when }`, as its rule and its condition on the stored record. */
export function splitAccess(entry: AccessEntry): { rule: AccessRuleDef | undefined; when: WhenDef | undefined } {
  if (entry === undefined || typeof entry === 'string' || Array.isArray(entry)) return { rule: entry, when: undefined };
  return { rule: entry.access, when: entry.when };
}
