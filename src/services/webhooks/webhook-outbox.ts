import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DeliveryToSend, WebhookRepository } from '../../adapters/db/repositories/webhook-repository.js';
import type { RegionalSchema, WebhookDeliveryRow } from '../../adapters/db/schema.js';
import type { Region } from '../../domain/regions.js';
import { subscribes, type WebhookEventBody, type WebhookEventType } from '../../domain/webhooks/events.js';
import type { Clock } from '../../ports/clock.js';
import type { OutboxSignal } from './outbox-signal.js';

export type { DeliveryToSend };

/** The event's own ids (nodeId, bundleId…); the organization and the region are added. */
export type EventIds = Record<string, unknown>;

export function newEventId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** A delivery row due now, for a new event or a redelivery. */
export function newDeliveryRow(
  endpointId: string,
  orgId: string,
  eventId: string,
  eventType: string,
  now: string,
): WebhookDeliveryRow {
  return {
    id: randomUUID(),
    endpoint_id: endpointId,
    org_id: orgId,
    event_id: eventId,
    event_type: eventType,
    attempt: 0,
    status: 'pending',
    response_status: null,
    duration_ms: null,
    error: null,
    next_attempt_at: now,
    lease_until: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * The one way a service reports a change (docs/webhooks.md): `record(tx, orgId, type, ids)`
 * inside the transaction that makes the change, so the event exists exactly when the change
 * does (an outbox): a rolled-back change leaves no event. It writes the event and one due
 * delivery per active endpoint subscribed to the type; an organization without such an
 * endpoint pays one indexed read and stores nothing.
 */
export class WebhookOutbox {
  constructor(
    private readonly region: Region,
    private readonly webhooks: WebhookRepository,
    private readonly clock: Clock,
    /** This process's dispatcher, told of each write (without one, the poll finds it). */
    private readonly signal?: OutboxSignal,
  ) {}

  async record(
    tx: Transaction<RegionalSchema> | Kysely<RegionalSchema>,
    orgId: string,
    type: WebhookEventType,
    ids: EventIds = {},
  ) {
    const endpoints = await this.webhooks.activeEndpoints(tx, orgId);
    const targets = endpoints.filter((endpoint) => subscribes(JSON.parse(endpoint.event_types) as string[], type));
    if (targets.length === 0) return undefined;
    return this.write(
      tx,
      orgId,
      type,
      ids,
      targets.map((endpoint) => endpoint.id),
    );
  }

  /** The event for exactly these endpoints (webhook.test goes to the one it is sent to). */
  async write(
    db: Transaction<RegionalSchema> | Kysely<RegionalSchema>,
    orgId: string,
    type: WebhookEventType,
    ids: EventIds,
    endpointIds: string[],
  ): Promise<{ eventId: string; deliveryIds: string[] }> {
    const now = this.clock.now().toISOString();
    const id = newEventId();
    const body: WebhookEventBody = { type, timestamp: now, data: { ...ids, organizationId: orgId, region: this.region } };
    const deliveries = endpointIds.map((endpointId) => newDeliveryRow(endpointId, orgId, id, type, now));
    await this.webhooks.insertEvent(db, { id, org_id: orgId, type, payload: JSON.stringify(body), created_at: now }, deliveries);
    this.signal?.written(this.region);
    return { eventId: id, deliveryIds: deliveries.map((delivery) => delivery.id) };
  }
}
