/**
 * The event types a webhook can subscribe to (docs/webhooks.md lists their data). Named
 * `<resource>.<change>`, camelCase resources as the API names them.
 */
export const WEBHOOK_EVENT_TYPES = [
  'bundle.processing.started',
  'bundle.processing.succeeded',
  'bundle.processing.failed',
  'comparison.succeeded',
  'comparison.failed',
  'upload.finalized',
  'siteFile.finalized',
  'libraryModel.ready',
  'node.created',
  'node.moved',
  'node.trashed',
  'node.restored',
  'node.deleted',
  'draft.published',
  'pointOfInterest.created',
  'pointOfInterest.updated',
  'pointOfInterest.deleted',
  'zone.created',
  'zone.updated',
  'zone.deleted',
  'measurement.created',
  'measurement.updated',
  'measurement.deleted',
  'metadata.changed',
  'invitation.accepted',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const ALL_EVENTS = '*';

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** Whether an endpoint subscribed to `eventTypes` gets an event of `type`. webhook.test goes only where it is sent. */
export function subscribes(eventTypes: readonly string[], type: string): boolean {
  if (type === 'webhook.test') return false;
  return eventTypes.includes(ALL_EVENTS) || eventTypes.includes(type);
}

/** The event's data: ids, with the organization and the region always there. */
export interface WebhookEventData {
  organizationId: string;
  region: string;
  [key: string]: unknown;
}

export interface WebhookEventBody {
  type: string;
  timestamp: string;
  data: WebhookEventData;
}
