import { type ApiResult, ok, type Schema } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';

export type Webhook = Schema<'Webhook'>;
export type WebhookWithSecret = Schema<'WebhookWithSecret'>;
export type Delivery = Schema<'WebhookDelivery'>;

/** Subscribing to every event type, present and future. */
export const ALL_EVENTS = '*';

/** A page of a `{items, page, limit, total}` list as the paged-list hook reads pages: its items. */
export async function itemsOf<Item>(call: Promise<ApiResult<{ items: Item[] }>>): Promise<ApiResult<Item[]>> {
  const result = await call;
  return { ...result, data: result.data?.items };
}

const eventTypeLists = new WeakMap<ConsoleSession, Promise<string[]>>();

/** The event types an endpoint may subscribe to (GET /v1/webhooks/event-types), read once per session. */
export function loadEventTypes(session: ConsoleSession): Promise<string[]> {
  let types = eventTypeLists.get(session);
  if (!types) {
    types = ok(session.api.GET('/v1/webhooks/event-types')).then((list) => list.items);
    types.catch(() => eventTypeLists.delete(session));
    eventTypeLists.set(session, types);
  }
  return types;
}

/** The endpoint's subscription in words. */
export function eventsInWords(eventTypes: string[]): string {
  return eventTypes.includes(ALL_EVENTS) ? 'All events' : eventTypes.join(', ');
}

/** Whether the endpoint gets deliveries, in words: a 410 Gone from the receiver turns it off with a reason. */
export function endpointState(webhook: Webhook): string {
  if (webhook.enabled) return 'Active';
  if (webhook.disabledAt) return `Turned off by the receiver (${webhook.disabledReason ?? 'it answered 410 Gone'})`;
  return 'Paused';
}

/** A delivery's state in words, with when the next attempt comes after a failure. */
export function deliveryState(delivery: Delivery): string {
  switch (delivery.status) {
    case 'pending':
      return 'Waiting to be sent';
    case 'succeeded':
      return 'Delivered';
    case 'failed':
      return delivery.nextAttemptAt
        ? `Failed, trying again at ${formatTime(delivery.nextAttemptAt)}`
        : 'Failed, trying again soon';
    case 'exhausted':
      return 'Failed, no attempt left';
    default:
      return delivery.status;
  }
}

/** Whether a delivery may still change (the log is read again while one may). */
export function underway(delivery: Delivery): boolean {
  return delivery.status === 'pending' || delivery.status === 'failed';
}

export function formatTime(iso: string): string {
  return new Date(iso).toLocaleString();
}
