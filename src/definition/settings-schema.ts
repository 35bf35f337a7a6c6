/** The API-wide settings of the definition format: auth, limits, cors, events and problems. */
import * as z from 'zod';
import { accessRuleSchema } from './access-schema.js';
import { noDuplicates, ROLE_ERROR, ROLE_NAME } from './schema-names.js';
import { DURATION_PATTERN, parseDuration, SIZE_PATTERN } from './units.js';

export const authSchema = z
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

export const limitsSchema = z
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

export const corsSchema = z
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

export const eventsSchema = z
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

export const problemsSchema = z
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
