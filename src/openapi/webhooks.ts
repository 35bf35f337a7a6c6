import type { Api } from '../model.js';
import type { JsonSchema } from '../contract/json-schemas.js';
import { after, nullable, page, type Route } from './events.js';
import { bodyResponses, commonResponses, json, problem, ref } from './parts.js';
import type { SchemaNames } from './schemas.js';

/** `/webhooks`, its deliveries and their retry: the administrator's, with `events.webhooks`. */
export function addWebhooks(api: Api, route: Route, names: SchemaNames): void {
  const admin = `the administrator (role ${api.auth.adminRole}) only`;
  const common = { ...commonResponses(api, [{ kind: 'authenticated' }]) };
  const id = {
    name: 'id',
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
    description: 'The webhook',
  };
  const notFound = problem('No webhook (or delivery) has this id');
  const operation = (operationId: string, summary: string, rest: JsonSchema): JsonSchema => ({
    operationId,
    summary,
    description: `For ${admin}.`,
    tags: ['webhooks'],
    security: [{ bearer: [] }],
    ...rest,
  });
  route(
    '/webhooks',
    'post',
    operation(
      'createWebhook',
      'Subscribe a URL to events (no Idempotency-Key: its stored answer would keep the secret)',
      {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: names.ref('events:WebhookInput'),
              example: { url: 'https://hooks.example.com/restsmith', types: [api.resources[0]?.name ?? ''] },
            },
          },
        },
        responses: {
          201: json(names.ref('events:WebhookCreated'), 'The subscription, with its signing secret (shown this once)', {
            Location: { description: 'The URL of the subscription', schema: { type: 'string' } },
          }),
          400: ref('responses', 'BadRequest'),
          ...bodyResponses(),
          409: problem(`There are 100 webhooks already`),
          ...common,
        },
      },
    ),
  );
  route(
    '/webhooks',
    'get',
    operation('listWebhooks', 'The subscriptions', {
      responses: { 200: json(names.ref('events:WebhookPage'), 'Every subscription'), ...common },
    }),
  );
  route(
    '/webhooks/{id}',
    'get',
    operation('getWebhook', 'One subscription', {
      parameters: [id],
      responses: { 200: json(names.ref('events:Webhook'), 'The subscription'), 404: notFound, ...common },
    }),
  );
  route(
    '/webhooks/{id}',
    'patch',
    operation('updateWebhook', 'Change a subscription (enabled: false pauses it; its events wait)', {
      parameters: [id],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: names.ref('events:WebhookPatch'), example: { enabled: false } },
          'application/merge-patch+json': { schema: names.ref('events:WebhookPatch'), example: { enabled: false } },
        },
      },
      responses: {
        200: json(names.ref('events:Webhook'), 'The subscription'),
        400: ref('responses', 'BadRequest'),
        404: notFound,
        ...bodyResponses(),
        ...common,
      },
    }),
  );
  route(
    '/webhooks/{id}',
    'delete',
    operation('deleteWebhook', 'Remove a subscription and its deliveries', {
      parameters: [id],
      responses: { 204: { description: 'Removed' }, 404: notFound, ...common },
    }),
  );
  route(
    '/webhooks/{id}/deliveries',
    'get',
    operation('listDeliveries', 'The delivery log of a subscription, by event seq', {
      parameters: [
        id,
        {
          name: 'status',
          in: 'query',
          required: false,
          schema: names.ref('events:DeliveryStatus'),
        },
        after('The delivery id (event seq) after which to start'),
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: api.limits.pageSize.max },
        },
      ],
      responses: {
        200: json(names.ref('events:DeliveryPage'), 'A page of deliveries'),
        400: ref('responses', 'BadRequest'),
        404: notFound,
        ...common,
      },
    }),
  );
  route(
    '/webhooks/{id}/deliveries/{deliveryId}/retry',
    'post',
    operation('retryDelivery', 'Deliver a failed delivery again (a new round of attempts)', {
      parameters: [id, { name: 'deliveryId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      responses: {
        202: json(names.ref('events:Delivery'), 'The delivery, pending again'),
        400: ref('responses', 'BadRequest'),
        404: notFound,
        409: problem('The delivery did not fail (it is pending or delivered)'),
        ...common,
      },
    }),
  );
}

/** The schemas of webhook subscriptions' pages and deliveries, by component name (before naming). */
export function webhookSchemas(names: SchemaNames): [string, JsonSchema][] {
  const delivery: JsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', description: 'The seq of the event delivered' },
      type: names.ref('events:EventType'),
      event: { ...names.ref('events:Event'), description: 'The event, as it is sent' },
      status: names.ref('events:DeliveryStatus'),
      attempts: { type: 'integer', minimum: 0 },
      lastStatus: nullable('integer', { description: "The receiver's status at the last attempt" }),
      lastError: nullable('string'),
      nextAttemptAt: nullable('string', { format: 'date-time' }),
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
    required: [
      'id',
      'type',
      'event',
      'status',
      'attempts',
      'lastStatus',
      'lastError',
      'nextAttemptAt',
      'createdAt',
      'updatedAt',
    ],
  };
  return [
    ['WebhookPage', page(names.ref('events:Webhook'), 'Every subscription (nextCursor is always null)')],
    ['Delivery', delivery],
    ['DeliveryStatus', { type: 'string', enum: ['pending', 'delivered', 'failed'] }],
    ['DeliveryPage', page(names.ref('events:Delivery'), 'A page of deliveries: pass nextCursor as `after`')],
  ];
}
