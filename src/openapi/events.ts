import type { Api } from '../model.js';
import type { JsonSchema } from '../contract/json-schemas.js';
import { isPublic } from '../contract/access.js';
import { eventTypes } from '../contract/events.js';
import { commonResponses, json, limitHeaders, problem, ref } from './parts.js';
import type { SchemaNames } from './schemas.js';
import { addWebhooks, webhookSchemas } from './webhooks.js';

export type Route = (path: string, method: string, operation: JsonSchema) => void;

/** The component schemas of the feed and of webhooks, claimed after the resources' (see SchemaNames). */
export const EVENT_SCHEMAS = ['Event', 'EventPage'];
/** with `events.webhooks` only: an API without subscriptions names none of their schemas */
export const WEBHOOK_SCHEMAS = [
  'EventType',
  'Webhook',
  'WebhookCreated',
  'WebhookInput',
  'WebhookPatch',
  'WebhookPage',
  'Delivery',
  'DeliveryStatus',
  'DeliveryPage',
];

export const after = (what: string): JsonSchema => ({
  name: 'after',
  in: 'query',
  required: false,
  description: what,
  schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
});

const typesParameter = (api: Api): JsonSchema => ({
  name: 'types',
  in: 'query',
  required: false,
  description:
    'Comma-separated resources (each of its types) and event types, like ' +
    `\`${api.resources.map((r) => eventTypes(r)[0]).join(',')}\`; every type when absent`,
  schema: { type: 'string', maxLength: 2000 },
});

/** `/events`, `/events/stream` and, with `webhooks`, `/webhooks` and its deliveries. */
export function addEvents(api: Api, route: Route, names: SchemaNames): void {
  if (api.events === undefined) return;
  const anyPublic = api.resources.some((r) => isPublic(r.access.read));
  // the feed needs no token when some resource may be read without one; a token then widens what it shows
  const security = anyPublic ? [{}, { bearer: [] }] : [{ bearer: [] }];
  // a token sent must be valid, even where none is needed: a 401, never a narrower feed
  const common = commonResponses(api, [{ kind: 'authenticated' }]);
  delete common[403];
  const gone = problem(
    `The retention (${api.events.retention}) removed events after \`after\`: read the records again`,
  );
  route('/events', 'get', {
    operationId: 'listEvents',
    summary: 'The change feed: events after a seq, oldest first',
    description:
      'Every create, replace, patch, delete and action records an event in the transaction of its change. Each caller ' +
      "sees the events of the records its read rule lets it read, as they were (a deletion's, as the record was before " +
      'it went). Follow `nextCursor` (as `after`) while it is not null; then poll with the `seq` of the last event seen. ' +
      'Delivery is at least once to a reader that resumes from its last `seq`; `seq` increases in commit order.',
    tags: ['events'],
    security,
    parameters: [
      after('The seq after which to start (0, or absent: the oldest kept)'),
      typesParameter(api),
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: api.limits.pageSize.max },
      },
    ],
    responses: {
      200: json(names.ref('events:EventPage'), 'A page of events', limitHeaders(api)),
      400: ref('responses', 'BadRequest'),
      410: gone,
      ...common,
    },
  });
  route('/events/stream', 'get', {
    operationId: 'streamEvents',
    summary: 'The change feed, live, as Server-Sent Events',
    description:
      'Each event as `id: <seq>`, `event: <type>`, `data: <the event as JSON>`; a comment at least every 15 s. A client ' +
      'that reconnects with `Last-Event-ID` (or `?after=`) resumes with no gap and no duplicate. A client that takes ' +
      'nothing of what it was sent for 15 s is disconnected: it resumes by id. The stream ends when its token expires.',
    tags: ['events'],
    security,
    parameters: [
      after('The seq after which to start, when no Last-Event-ID is sent'),
      typesParameter(api),
      {
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        description: 'The seq of the last event received: the stream resumes after it',
        schema: { type: 'string', pattern: '^[0-9]{1,16}$' },
      },
    ],
    responses: {
      200: {
        description: 'The stream, open until the client or the server closes it',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      400: ref('responses', 'BadRequest'),
      410: gone,
      ...common,
    },
  });
  if (api.events.webhooks) addWebhooks(api, route, names);
}

/** A page of `items`: `{ items, nextCursor }`. */
export const page = (items: JsonSchema, description: string): JsonSchema => ({
  type: 'object',
  description,
  properties: { items: { type: 'array', items }, nextCursor: { type: ['string', 'null'] } },
  required: ['items', 'nextCursor'],
});

export const nullable = (type: string, extra: JsonSchema = {}): JsonSchema => ({ type: [type, 'null'], ...extra });

/** The schemas of the feed and of webhooks, by component name. */
export function eventSchemas(api: Api, names: SchemaNames): [string, JsonSchema][] {
  if (api.events === undefined) return [];
  const types = api.resources.flatMap(eventTypes);
  // one schema a resource, told apart by `resource`: a `oneOf` of the records themselves failed strict validation
  // where two resources have the same shape (a record of one is a record of the other too)
  const event: JsonSchema = {
    description: 'A change: `data` is the record as the API returned it then (null for a deletion)',
    oneOf: api.resources.map((r) => names.ref(`event:${r.name}`)),
    discriminator: {
      propertyName: 'resource',
      mapping: Object.fromEntries(api.resources.map((r) => [r.name, names.ref(`event:${r.name}`).$ref])),
    },
  };
  const eventOf = (r: Api['resources'][number]): JsonSchema => ({
    type: 'object',
    description: `A change to a record of ${r.name}: \`data\` is the record as the API returned it then (null for a deletion)`,
    properties: {
      seq: { type: 'integer', minimum: 1, description: 'Increases in commit order; never reused' },
      type: names.ref(`eventType:${r.name}`),
      resource: { type: 'string', const: r.name },
      recordId: { type: ['string', 'integer', 'null'] },
      version: nullable('integer', { description: 'The record version after the change: drop stale events by it' }),
      at: { type: 'string', format: 'date-time' },
      actor: nullable('string', { description: "The subject of the writer's token" }),
      data: { anyOf: [names.ref(`record:${r.name}`), { type: 'null' }] },
    },
    required: ['seq', 'type', 'resource', 'recordId', 'version', 'at', 'actor', 'data'],
  });
  const url = {
    type: 'string',
    minLength: 1,
    maxLength: 2000,
    description: 'http(s), with no user name or password; no loopback or private address',
  };
  const subscribed = {
    type: ['array', 'null'],
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    items: { type: 'string' },
  };
  const webhook: JsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      url: { type: 'string' },
      types: { ...subscribed, description: 'Resources and event types sent; null: every event' },
      description: nullable('string'),
      enabled: { type: 'boolean' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
    required: ['id', 'url', 'types', 'description', 'enabled', 'createdAt', 'updatedAt'],
  };
  const schemas: [string, JsonSchema][] = [
    ['Event', event],
    ['EventPage', page(names.ref('events:Event'), 'A page of the feed: pass nextCursor as `after`; null: none yet')],
  ];
  const byResource = api.resources.flatMap((r): [string, JsonSchema][] => [
    [names.of(`event:${r.name}`), eventOf(r)],
    [names.of(`eventType:${r.name}`), { type: 'string', enum: eventTypes(r) }],
  ]);
  // a delivery's type: every type of every resource
  const eventType: [string, JsonSchema] = [
    'EventType',
    { type: 'string', enum: types, description: 'resource.created, .updated, .deleted or .<action>' },
  ];
  const subscriptions: [string, JsonSchema][] = [
    ['Webhook', webhook],
    [
      'WebhookCreated',
      {
        ...webhook,
        properties: {
          ...(webhook.properties as JsonSchema),
          secret: { type: 'string', description: 'The signing secret (whsec_…), shown this once' },
        },
        required: [...(webhook.required as string[]), 'secret'],
      },
    ],
    [
      'WebhookInput',
      {
        type: 'object',
        additionalProperties: false,
        properties: { url, types: subscribed, description: nullable('string', { maxLength: 1000 }) },
        required: ['url'],
      },
    ],
    [
      'WebhookPatch',
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          url,
          types: subscribed,
          description: nullable('string', { maxLength: 1000 }),
          enabled: { type: 'boolean' },
        },
      },
    ],
  ];
  const named = [...schemas, ...(api.events.webhooks ? [eventType, ...subscriptions, ...webhookSchemas(names)] : [])];
  return [...named.map(([key, schema]): [string, JsonSchema] => [names.of(`events:${key}`), schema]), ...byResource];
}
