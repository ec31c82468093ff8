import { randomUUID } from 'node:crypto';
import type { InTransaction } from '../../adapters/db/database.js';
import type { WebhookRepository } from '../../adapters/db/repositories/webhook-repository.js';
import type { RegionalSchema, WebhookDeliveryRow, WebhookEndpointRow } from '../../adapters/db/schema.js';
import { sealText } from '../../crypto/sealed-text.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { ALL_EVENTS, isWebhookEventType } from '../../domain/webhooks/events.js';
import { newWebhookSecret } from '../../domain/webhooks/signing.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeAccess } from '../node-service.js';
import { checkEndpointAddress } from './endpoint-address.js';
import { newDeliveryRow, type WebhookOutbox } from './webhook-outbox.js';

/** After a rotation, deliveries carry the old secret's signature too for this long (docs/webhooks.md). */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

export interface EndpointInput {
  url?: string;
  eventTypes?: string[];
  description?: string | null;
  enabled?: boolean;
}

export interface WebhookServiceOptions {
  clock: Clock;
  nodes: NodeAccess;
  webhooks: WebhookRepository;
  /** Writes webhook.test events. */
  outbox: Pick<WebhookOutbox, 'write'>;
  transaction: InTransaction<RegionalSchema>;
  /** Whether endpoints may be private addresses (RDP_WEBHOOK_ALLOW_PRIVATE). */
  allowPrivateAddresses: boolean;
  /** Seals the endpoints' signing secrets in the store (crypto/sealed-text.ts). */
  secretsKey: Buffer;
}

/** Webhook endpoints of an organization, for its administrators (manage on the organization node). */
export class WebhookService {
  private readonly clock: Clock;
  private readonly nodes: NodeAccess;
  private readonly webhooks: WebhookRepository;
  private readonly outbox: Pick<WebhookOutbox, 'write'>;
  private readonly transaction: InTransaction<RegionalSchema>;
  private readonly allowPrivateAddresses: boolean;
  private readonly secretsKey: Buffer;

  constructor(options: WebhookServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.webhooks = options.webhooks;
    this.outbox = options.outbox;
    this.transaction = options.transaction;
    this.allowPrivateAddresses = options.allowPrivateAddresses;
    this.secretsKey = options.secretsKey;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async admin(principal: Principal): Promise<void> {
    await this.nodes.authorize(principal, principal.orgId, 'manage');
  }

  private async checkedUrl(raw: string): Promise<string> {
    const verdict = await checkEndpointAddress(raw, this.allowPrivateAddresses);
    if (!verdict.ok) throw validationError(verdict.reason);
    return verdict.url.toString();
  }

  private static eventTypes(types: string[]): string[] {
    const unique = [...new Set(types)];
    if (unique.length === 0) throw validationError('eventTypes must name at least one event type, or "*"');
    if (unique.includes(ALL_EVENTS) && unique.length > 1) throw validationError('eventTypes: "*" stands alone');
    const unknown = unique.filter((type) => type !== ALL_EVENTS && !isWebhookEventType(type));
    if (unknown.length > 0)
      throw validationError(`eventTypes: unknown event types ${unknown.join(', ')} (docs/webhooks.md lists them)`);
    return unique;
  }

  private seal(secret: string): string {
    return sealText(this.secretsKey, secret);
  }

  /** The new endpoint, with its secret in clear (stored sealed): the one time it is shown. */
  async create(principal: Principal, input: Required<Pick<EndpointInput, 'url' | 'eventTypes'>> & EndpointInput) {
    await this.admin(principal);
    const url = await this.checkedUrl(input.url);
    const now = this.now();
    const secret = newWebhookSecret();
    const row: WebhookEndpointRow = {
      id: randomUUID(),
      org_id: principal.orgId,
      url,
      event_types: JSON.stringify(WebhookService.eventTypes(input.eventTypes)),
      description: input.description ?? null,
      enabled: input.enabled === false ? 0 : 1,
      secret: this.seal(secret),
      previous_secret: null,
      previous_secret_until: null,
      created_at: now,
      updated_at: now,
      disabled_at: null,
      disabled_reason: null,
    };
    await this.webhooks.insertEndpoint(row);
    return { ...row, secret };
  }

  async list(principal: Principal, limit: number, offset: number) {
    await this.admin(principal);
    return this.webhooks.listEndpoints(principal.orgId, limit, offset);
  }

  async get(principal: Principal, id: string): Promise<WebhookEndpointRow> {
    await this.admin(principal);
    const row = await this.webhooks.findEndpoint(principal.orgId, id);
    if (!row) throw new ApiError('NotFound', 'Webhook not found');
    return row;
  }

  /** Enabling an endpoint a 410 disabled clears disabledAt: its waiting deliveries go out again. */
  async update(principal: Principal, id: string, input: EndpointInput): Promise<WebhookEndpointRow> {
    const current = await this.get(principal, id);
    const now = this.now();
    const changes = {
      ...(input.url !== undefined ? { url: await this.checkedUrl(input.url) } : {}),
      ...(input.eventTypes !== undefined ? { event_types: JSON.stringify(WebhookService.eventTypes(input.eventTypes)) } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled ? 1 : 0 } : {}),
      ...(input.enabled === true ? { disabled_at: null, disabled_reason: null } : {}),
      updated_at: now,
    };
    await this.webhooks.updateEndpoint(principal.orgId, id, changes);
    return { ...current, ...changes };
  }

  async remove(principal: Principal, id: string): Promise<void> {
    await this.admin(principal);
    if (!(await this.webhooks.deleteEndpoint(principal.orgId, id))) throw new ApiError('NotFound', 'Webhook not found');
  }

  /** A new secret, answered in clear once; the old one keeps signing beside it for ROTATION_GRACE_MS. */
  async rotateSecret(principal: Principal, id: string): Promise<WebhookEndpointRow> {
    const current = await this.get(principal, id);
    const now = this.clock.now();
    const secret = newWebhookSecret();
    const changes = {
      secret: this.seal(secret),
      previous_secret: current.secret,
      previous_secret_until: new Date(now.getTime() + ROTATION_GRACE_MS).toISOString(),
      updated_at: now.toISOString(),
    };
    await this.webhooks.updateEndpoint(principal.orgId, id, changes);
    return { ...current, ...changes, secret };
  }

  /** A webhook.test event for this endpoint alone, sent like any other (also when disabled: it waits). */
  async sendTest(principal: Principal, id: string): Promise<{ eventId: string; deliveryId: string }> {
    const endpoint = await this.get(principal, id);
    const { eventId, deliveryIds } = await this.transaction((tx) =>
      this.outbox.write(tx, principal.orgId, 'webhook.test', { webhookId: endpoint.id }, [endpoint.id]),
    );
    return { eventId, deliveryId: deliveryIds[0] as string };
  }

  async deliveries(principal: Principal, id: string, limit: number, offset: number) {
    const endpoint = await this.get(principal, id);
    return this.webhooks.listDeliveries(endpoint.id, limit, offset);
  }

  async delivery(principal: Principal, id: string, deliveryId: string): Promise<WebhookDeliveryRow> {
    const endpoint = await this.get(principal, id);
    const row = await this.webhooks.findDelivery(endpoint.id, deliveryId);
    if (!row) throw new ApiError('NotFound', 'Delivery not found');
    return row;
  }

  /** A new delivery of the same event (the same webhook-id), due now. */
  async redeliver(principal: Principal, id: string, deliveryId: string): Promise<WebhookDeliveryRow> {
    const previous = await this.delivery(principal, id, deliveryId);
    const endpoint = { id: previous.endpoint_id };
    const row = newDeliveryRow(endpoint.id, principal.orgId, previous.event_id, previous.event_type, this.now());
    await this.webhooks.insertDelivery(row);
    return row;
  }
}
