import { Type } from '@sinclair/typebox';
import type { Region } from '../../../domain/regions.js';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';
import {
  CreateWebhookBody,
  DeliveryIdParams,
  DeliveryListSchema,
  DeliverySchema,
  EventTypeListSchema,
  SUBSCRIBABLE_EVENT_TYPES,
  TestEventSchema,
  toDeliveryBody,
  toWebhookBody,
  UpdateWebhookBody,
  WebhookIdParams,
  WebhookListSchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from './webhook-schemas.js';

const ACCESS = 'Organization administrators only (manage on the organization node). See docs/webhooks.md.';
const PageQuery = Type.Object(Paging, { additionalProperties: false });

/** Webhook endpoints and their delivery logs (docs/design/webhooks.md#endpoints, docs/webhooks.md). */
export default async function webhookRoutes(app: RegionApp, region: Region) {
  app.addSchema(WebhookSchema);
  app.addSchema(WebhookWithSecretSchema);
  app.addSchema(DeliverySchema);
  const { webhooks } = app.services;
  const base = `${app.platform.config.regionUrls[region]}/v1/webhooks`;
  const tags = ['Webhooks'];

  app.post(
    '/v1/webhooks',
    {
      config: { scope: 'write:webhooks' },
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint; the answer shows its signing secret, once',
        description: `400 ValidationError naming url: not https, credentials in it, or a host that is or resolves to a non-public address. ${ACCESS}`,
        body: CreateWebhookBody,
        response: { 201: Type.Ref('WebhookWithSecret'), ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const row = await webhooks.create(request.principal, request.body);
      return reply
        .code(201)
        .header('location', `${base}/${row.id}`)
        .send({ ...toWebhookBody(row), secret: row.secret });
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: { scope: 'read:webhooks' },
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: "The organization's webhook endpoints, oldest first",
        description: ACCESS,
        querystring: PageQuery,
        response: { 200: WebhookListSchema, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const limit = clampLimit(request.query.limit);
      const offset = request.query.offset ?? 0;
      const { rows, total } = await webhooks.list(request.principal, limit, offset);
      return { items: rows.map(toWebhookBody), page: Math.floor(offset / limit), limit, total };
    },
  );

  app.get(
    '/v1/webhooks/event-types',
    {
      config: { scope: 'read:webhooks' },
      schema: {
        tags,
        operationId: 'listWebhookEventTypes',
        summary: 'The event types an endpoint may subscribe to (besides "*" for all)',
        description: 'The same for every organization; docs/webhooks.md tells what each carries.',
        response: { 200: EventTypeListSchema, ...errors(401, 403) },
      },
    },
    async () => ({ items: [...SUBSCRIBABLE_EVENT_TYPES] }),
  );

  app.get(
    '/v1/webhooks/:webhookId',
    {
      config: { scope: 'read:webhooks' },
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Get a webhook endpoint (without its secret)',
        description: ACCESS,
        params: WebhookIdParams,
        response: { 200: Type.Ref('Webhook'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => toWebhookBody(await webhooks.get(request.principal, request.params.webhookId)),
  );

  app.patch(
    '/v1/webhooks/:webhookId',
    {
      config: { scope: 'write:webhooks' },
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Change the address, the event types, the description, or enable and disable',
        description: `The address rules of creation apply. ${ACCESS}`,
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: { 200: Type.Ref('Webhook'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => toWebhookBody(await webhooks.update(request.principal, request.params.webhookId, request.body)),
  );

  app.delete(
    '/v1/webhooks/:webhookId',
    {
      config: { scope: 'write:webhooks' },
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint and its delivery log',
        description: ACCESS,
        params: WebhookIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(request.principal, request.params.webhookId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/webhooks/:webhookId/rotate-secret',
    {
      config: { scope: 'write:webhooks' },
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret; the answer shows the new one, once',
        description: `For 24 hours deliveries carry a signature with the old secret beside the new one. ${ACCESS}`,
        params: WebhookIdParams,
        response: { 200: Type.Ref('WebhookWithSecret'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const row = await webhooks.rotateSecret(request.principal, request.params.webhookId);
      return { ...toWebhookBody(row), secret: row.secret };
    },
  );

  app.post(
    '/v1/webhooks/:webhookId/test',
    {
      config: { scope: 'write:webhooks' },
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'Send a webhook.test event to this endpoint',
        description: `Delivered by the worker like any event; its outcome shows in the deliveries log. ${ACCESS}`,
        params: WebhookIdParams,
        response: { 202: TestEventSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.code(202).send(await webhooks.sendTest(request.principal, request.params.webhookId)),
  );

  app.get(
    '/v1/webhooks/:webhookId/deliveries',
    {
      config: { scope: 'read:webhooks' },
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: "The endpoint's deliveries, newest first",
        description: ACCESS,
        params: WebhookIdParams,
        querystring: PageQuery,
        response: { 200: DeliveryListSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const limit = clampLimit(request.query.limit);
      const offset = request.query.offset ?? 0;
      const { rows, total } = await webhooks.deliveries(request.principal, request.params.webhookId, limit, offset);
      return { items: rows.map(toDeliveryBody), page: Math.floor(offset / limit), limit, total };
    },
  );

  app.get(
    '/v1/webhooks/:webhookId/deliveries/:deliveryId',
    {
      config: { scope: 'read:webhooks' },
      schema: {
        tags,
        operationId: 'getWebhookDelivery',
        summary: 'One delivery of the log',
        description: ACCESS,
        params: DeliveryIdParams,
        response: { 200: Type.Ref('WebhookDelivery'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      toDeliveryBody(await webhooks.delivery(request.principal, request.params.webhookId, request.params.deliveryId)),
  );

  app.post(
    '/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      config: { scope: 'write:webhooks' },
      schema: {
        tags,
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again: a new delivery of the same event (the same webhook-id)',
        description: ACCESS,
        params: DeliveryIdParams,
        response: { 201: Type.Ref('WebhookDelivery'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const row = await webhooks.redeliver(request.principal, request.params.webhookId, request.params.deliveryId);
      return reply
        .code(201)
        .header('location', `${base}/${request.params.webhookId}/deliveries/${row.id}`)
        .send(toDeliveryBody(row));
    },
  );
}
