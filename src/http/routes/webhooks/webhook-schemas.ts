import { type Static, Type } from '@sinclair/typebox';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../../domain/records/regional.js';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks/events.js';

/** The event types an endpoint subscribes to by name (webhook.test goes only where it is sent). */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test');

const EVENT_TYPES_TEXT = `Event types (${SUBSCRIBABLE_EVENT_TYPES.join(', ')}), or ["*"] for all`;

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'https address of the receiver; no credentials, no private, loopback or link-local host (docs/webhooks.md)',
});
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  description: EVENT_TYPES_TEXT,
});
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);

export const CreateWebhookBody = Type.Object(
  { url: Url, eventTypes: EventTypes, description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ description: 'true also clears disabledAt after a 410' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  eventTypes: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a 410 Gone from the receiver disabled it; PATCH enabled: true clears it',
  }),
  disabledReason: Type.Union([Type.String(), Type.Null()]),
};

export const WebhookSchema = Type.Object(endpointFields, { $id: 'Webhook' });
export const WebhookWithSecretSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({ description: 'whsec_ followed by base64: the signing key, shown only here' }),
  },
  { $id: 'WebhookWithSecret' },
);
type WebhookBody = Static<typeof WebhookSchema>;

export const WebhookListSchema = Type.Object({
  items: Type.Array(Type.Ref('Webhook')),
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String({ description: 'The webhook-id header: the same on every attempt and redelivery' }),
    eventType: Type.String(),
    attempt: Type.Integer({ description: 'Attempts made so far' }),
    status: Type.Union(
      ['pending', 'succeeded', 'failed', 'exhausted'].map((value) => Type.Literal(value)),
      {
        description: 'failed: the last attempt failed and nextAttemptAt says when the next is; exhausted: no attempt left',
      },
    ),
    responseStatus: Type.Union([Type.Integer(), Type.Null()]),
    durationMs: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery' },
);

export const DeliveryListSchema = Type.Object({
  items: Type.Array(Type.Ref('WebhookDelivery')),
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});

export const EventTypeListSchema = Type.Object({
  items: Type.Array(Type.String(), {
    description: 'Every event type an endpoint may subscribe to (webhook.test is sent only by POST .../test)',
  }),
});

export const TestEventSchema = Type.Object({ eventId: Type.String(), deliveryId: Type.String() });

export const WebhookIdParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 100 }) });
export const DeliveryIdParams = Type.Object({
  webhookId: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});

export function toWebhookBody(row: WebhookEndpointRow): WebhookBody {
  return {
    id: row.id,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
  };
}

export function toDeliveryBody(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    error: row.error,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}
