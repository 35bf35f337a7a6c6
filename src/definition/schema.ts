/**
 * The definition format (SPEC §2), described once, with zod. Validation, the `Definition` type and the
 * JSON Schema for editors (`restsmith schema`) are all derived from this schema. Structure and the
 * shape of single values live here; rules that relate several values (a `ref` to an existing resource,
 * a known role, a default within `min`/`max`…) are in semantic-checks.ts.
 */
import * as z from 'zod';
import { OPERATIONS } from '../model.js';
import { SIZE_PATTERN, DURATION_PATTERN, parseDuration } from './units.js';
import { isDate } from '../field-types/index.js';
import { isWebUrl } from './values.js';
import { fieldName, fieldSchema } from './field-schema.js';

export { fieldSchema, fieldObjectSchema, expandField, type FieldDef, type FieldObject } from './field-schema.js';

export const API_NAME = /^[a-z][a-z0-9-]*$/;
export const RESOURCE_NAME = /^[a-z][a-z0-9-]*$/;
export const ACTION_NAME = /^[a-z][a-z0-9-]*$/;
export const ROLE_NAME = /^[A-Za-z][A-Za-z0-9_.:-]*$/;
/** `/api/v1`: segments of unreserved URL characters, no trailing slash. */
export const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/;

const ROLE_ERROR = { error: 'use letters, digits, _ . : and -, starting with a letter' };

const kebabName = () =>
  z.string().regex(RESOURCE_NAME, {
    error: "use lower-case letters, digits and '-', starting with a letter",
  });

/**
 * A map keyed by names: a key that is not a valid name is reported at the key, and its value is checked all the
 * same (zod's own record skips the value of a bad key: its problems would show only once the name is fixed).
 */
function namedMap<V extends z.ZodType>(name: z.ZodString, value: V) {
  return z.record(z.string(), value).superRefine(
    (map: unknown, ctx) => {
      // it runs even when the value is not a map at all (zod said so already)
      if (typeof map !== 'object' || map === null || Array.isArray(map)) return;
      for (const key of Object.keys(map)) {
        const result = name.safeParse(key);
        if (!result.success) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: result.error.issues[0]?.message ?? 'not a valid name',
            params: { key: true },
          });
        }
      }
    },
    { when: () => true },
  );
}

function noDuplicates(values: readonly string[], ctx: z.RefinementCtx): void {
  values.forEach((value, i) => {
    if (values.indexOf(value) !== i) {
      ctx.addIssue({ code: 'custom', path: [i], message: `"${value}" is listed twice` });
    }
  });
}

// ── access ───────────────────────────────────────────────────────────────────────────────────────────

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
const whenSchema = namedMap(fieldName, z.union([scalar, z.array(scalar).min(1)]));

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

const accessSchema = z
  .strictObject({
    list: operationAccess('GET /{collection}'),
    read: operationAccess('GET /{collection}/{id}'),
    create: operationAccess('POST /{collection}'),
    update: guardedAccess('PUT and PATCH /{collection}/{id}'),
    delete: guardedAccess('DELETE /{collection}/{id}'),
  })
  .describe('Access rule per operation.');

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

const authSchema = z
  .strictObject({
    default: accessRuleSchema
      .optional()
      .describe('Access for any operation or action that does not say (default: authenticated).'),
    adminRole: z
      .string()
      .regex(ROLE_NAME, ROLE_ERROR)
      .optional()
      .describe('The administrator role, which passes every rule (default: admin).'),
    roles: z
      .array(z.string().regex(ROLE_NAME, ROLE_ERROR))
      .min(1)
      .superRefine(noDuplicates)
      .optional()
      .describe('Every role the definition may name (default: [adminRole]).'),
  })
  .describe('Authentication and authorisation defaults.');

const limitsSchema = z
  .strictObject({
    pageSize: z
      .strictObject({
        default: z.int().min(1).optional().describe('Page size when `limit` is not given (default 20).'),
        max: z.int().min(1).optional().describe('Largest `limit` a client may ask for (default 100).'),
      })
      .optional(),
    bodySize: z
      .union([
        z.int().min(1),
        z.string().regex(SIZE_PATTERN, { error: 'use a number of bytes or a size like 512kb or 1mb' }),
      ])
      .optional()
      .describe('Largest request body: bytes, or like 512kb, 1mb (binary units; default 1mb).'),
    rateLimit: z
      .strictObject({
        max: z.int().min(1).optional().describe('Requests allowed per window and client (default 300).'),
        window: z
          .string()
          .regex(DURATION_PATTERN, { error: 'use a duration like 500ms, 30s, 1m, 1h or 1d' })
          .optional()
          .describe('Length of the window: like 30s, 1m, 1h (default 1m).'),
      })
      .optional()
      .describe('Per client (token subject, else IP address).'),
    includeDepth: z
      .int()
      .min(1)
      .max(5)
      .optional()
      .describe('How many relations deep `include` may go, e.g. books.tags is 2 (default 2).'),
    include: z
      .strictObject({
        maxRecords: z
          .int()
          .min(1)
          .optional()
          .describe(
            'The most records one request may embed (default 1000): a request whose limit and include paths could ' +
              'embed more is a 400. A to-one hop embeds one record per record above it, a to-many hop a page ' +
              '(pageSize.default) per record above it.',
          ),
      })
      .optional()
      .describe('The budget for embedding with `include`.'),
  })
  .describe('Limits of the generated server.');

/** An origin as browsers send it: scheme, host (lower case, as browsers send it) and port only. */
const ORIGIN = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

const corsSchema = z
  .strictObject({
    origins: z
      .union([
        z.literal('*'),
        z
          .array(
            z.string().regex(ORIGIN, {
              error: 'use http(s)://host[:port] in lower case, like https://app.example.com (no path, no trailing /)',
            }),
          )
          .min(1)
          .superRefine(noDuplicates),
      ])
      .describe('The origins whose pages may call the API: a list like [https://app.example.com], or "*" (any).'),
    credentials: z
      .boolean()
      .optional()
      .describe('Whether browsers send cookies and HTTP authentication along (default false); not with "*".'),
    maxAge: z
      .string()
      .regex(DURATION_PATTERN, { error: 'use a duration like 30s, 10m or 2h' })
      .optional()
      .describe('How long a browser may reuse a preflight answer: like 10m (the default), 2h.'),
  })
  .superRefine((cors, ctx) => {
    if (cors.origins === '*' && cors.credentials === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['credentials'],
        message: 'browsers refuse credentials with origins "*": list the origins instead',
      });
    }
  })
  .describe('Cross-origin requests from browsers (CORS): without it, no CORS headers are sent.');

/** A duration (already matching DURATION_PATTERN) from `min` to `max` milliseconds. */
const between =
  (min: number, max: number) =>
  (duration: string): boolean => {
    const ms = parseDuration(duration);
    return ms === undefined || (ms >= min && ms <= max);
  };

const eventsSchema = z
  .strictObject({
    retention: z
      .string()
      .regex(DURATION_PATTERN, { error: 'use a duration like 12h, 7d or 30d' })
      .refine(between(1000, 3650 * 86_400_000), { error: 'use a duration from 1s to 3650d' })
      .optional()
      .describe('How long events are kept for the feed, the stream and webhooks: like 7d (the default), 30d.'),
    webhooks: z
      .boolean()
      .optional()
      .describe('Administrator-managed webhook subscriptions at /webhooks (default false).'),
    retry: z
      .strictObject({
        attempts: z
          .int()
          .min(1)
          .max(20)
          .optional()
          .describe('Delivery attempts of a webhook in all, the first included (default 8).'),
        firstDelay: z
          .string()
          .regex(DURATION_PATTERN, { error: 'use a duration like 500ms, 30s or 5m' })
          .refine(between(10, 86_400_000), { error: 'use a duration from 10ms to 1d' })
          .optional()
          .describe('Delay of the first retry: like 30s (the default); each later one about twice as late.'),
      })
      .optional()
      .describe('How failed webhook deliveries are retried.'),
  })
  .describe('A change feed: every write records an event (GET /events, GET /events/stream, webhooks).');

/** `https://errors.example.com/api`: an http(s) URL with no query, fragment or trailing slash. */
export const PROBLEMS_BASE = /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?(\/[A-Za-z0-9._~%!$&'()*+,;=:@-]*)*$/;

const problemsSchema = z
  .strictObject({
    base: z
      .string()
      .regex(PROBLEMS_BASE, {
        error: 'use an http or https URL with no query or fragment, e.g. https://example.com/problems',
        abort: true,
      })
      .refine((base) => !base.endsWith('/'), { error: 'leave out the trailing /, e.g. https://example.com/problems' })
      .optional()
      .describe(
        'Where problem types live: each type is <base>/<kind> (default: <prefix>/problems, served by the API).',
      ),
  })
  .describe("The `type` URIs of the API's problem documents (RFC 9457).");

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
