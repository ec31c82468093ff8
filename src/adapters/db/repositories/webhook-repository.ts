import { type Kysely, sql, type Transaction } from 'kysely';
import type { RegionalSchema, WebhookDeliveryRow, WebhookEndpointRow, WebhookEventRow } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** What a worker needs to send one claimed delivery. */
export interface DeliveryToSend {
  delivery: WebhookDeliveryRow;
  payload: string;
  endpoint: Pick<WebhookEndpointRow, 'id' | 'url' | 'secret' | 'previous_secret' | 'previous_secret_until'>;
}

export type EndpointChanges = Partial<
  Pick<
    WebhookEndpointRow,
    | 'url'
    | 'event_types'
    | 'description'
    | 'enabled'
    | 'secret'
    | 'previous_secret'
    | 'previous_secret_until'
    | 'updated_at'
    | 'disabled_at'
    | 'disabled_reason'
  >
>;

export type AttemptOutcome = Pick<
  WebhookDeliveryRow,
  'attempt' | 'status' | 'response_status' | 'duration_ms' | 'error' | 'next_attempt_at' | 'updated_at'
>;

/** Webhook endpoints, the outbox of events and deliveries, and the workers' claims on them. */
export class WebhookRepository {
  constructor(readonly db: Kysely<RegionalSchema>) {}

  async insertEndpoint(row: WebhookEndpointRow): Promise<void> {
    await this.db.insertInto('webhook_endpoints').values(row).execute();
  }

  findEndpoint(orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async listEndpoints(orgId: string, limit: number, offset: number): Promise<{ rows: WebhookEndpointRow[]; total: number }> {
    const rows = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await this.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  async updateEndpoint(orgId: string, id: string, changes: EndpointChanges): Promise<void> {
    await this.db.updateTable('webhook_endpoints').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute();
  }

  /** The endpoint and its log; its events stay while another endpoint's deliveries use them. */
  async deleteEndpoint(orgId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).where('org_id', '=', orgId).execute();
      const result = await tx.deleteFrom('webhook_endpoints').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  /** The endpoints that receive events now: enabled and not disabled by a 410. */
  activeEndpoints(db: Db, orgId: string): Promise<Pick<WebhookEndpointRow, 'id' | 'event_types'>[]> {
    return db
      .selectFrom('webhook_endpoints')
      .select(['id', 'event_types'])
      .where('org_id', '=', orgId)
      .where('enabled', '=', 1)
      .where('disabled_at', 'is', null)
      .execute();
  }

  async insertEvent(db: Db, event: WebhookEventRow, deliveries: WebhookDeliveryRow[]): Promise<void> {
    await db.insertInto('webhook_events').values(event).execute();
    if (deliveries.length > 0) await db.insertInto('webhook_deliveries').values(deliveries).execute();
  }

  findEvent(orgId: string, id: string): Promise<WebhookEventRow | undefined> {
    return this.db.selectFrom('webhook_events').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  async insertDelivery(row: WebhookDeliveryRow): Promise<void> {
    await this.db.insertInto('webhook_deliveries').values(row).execute();
  }

  async listDeliveries(
    endpointId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: WebhookDeliveryRow[]; total: number }> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  findDelivery(endpointId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Ids of deliveries due at `now` whose endpoint is active and that no live lease holds, oldest due first. */
  async dueDeliveries(now: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select('d.id')
      .where('d.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', now)]))
      .where('e.enabled', '=', 1)
      .where('e.disabled_at', 'is', null)
      .orderBy('d.next_attempt_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Takes the given deliveries until `leaseUntil`, those still due that no live lease holds: one
   * conditional update, so of two workers exactly one gets each. The lease is the claim's token.
   */
  async claim(ids: string[], now: string, leaseUntil: string): Promise<DeliveryToSend[]> {
    if (ids.length === 0) return [];
    const claimed = await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: leaseUntil })
      .where('id', 'in', ids)
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
      .returning('id')
      .execute();
    if (claimed.length === 0) return [];
    const rows = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .selectAll('d')
      .select(['v.payload', 'e.url', 'e.secret', 'e.previous_secret', 'e.previous_secret_until'])
      .where(
        'd.id',
        'in',
        claimed.map((row) => row.id),
      )
      .where('d.lease_until', '=', leaseUntil)
      .execute();
    return rows.map(({ payload, url, secret, previous_secret, previous_secret_until, ...delivery }) => ({
      delivery,
      payload,
      endpoint: { id: delivery.endpoint_id, url, secret, previous_secret, previous_secret_until },
    }));
  }

  /** Records an attempt's outcome and lets the claim go, if the claim is still this worker's. */
  async recordAttempt(id: string, leaseUntil: string, outcome: AttemptOutcome): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ ...outcome, lease_until: null })
      .where('id', '=', id)
      .where('lease_until', '=', leaseUntil)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Removes up to `limit` of the log's finished deliveries created before `cutoff`: ids found
   * through webhook_deliveries_finished, then rows by primary key. Returns the rows removed.
   */
  async deleteFinishedBefore(cutoff: string, limit: number): Promise<number> {
    const deliveries = await this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('next_attempt_at', 'is', null)
      .where('created_at', '<', cutoff)
      .limit(limit)
      .execute();
    if (deliveries.length === 0) return 0;
    const ids = deliveries.map((row) => row.id);
    return Number((await this.db.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
  }

  /**
   * One page of the events created before `cutoff`, after `after` in (created_at, id) order,
   * through webhook_events_created: those no delivery refers to any more (looked up through
   * webhook_deliveries_event) are removed. Paging rather than an anti-join keeps each call to
   * `limit` rows of each index whatever the tables hold. Returns the rows removed and where the
   * page ended (undefined: no event left to look at).
   */
  async deleteUnreferencedEventsPage(
    cutoff: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<{ removed: number; last: { createdAt: string; id: string } | undefined }> {
    let query = this.db
      .selectFrom('webhook_events')
      .select(['id', 'created_at'])
      .where('created_at', '<', cutoff)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit);
    if (after) query = query.where(sql<boolean>`(created_at, id) > (${after.createdAt}, ${after.id})`);
    const page = await query.execute();
    const end = page.at(-1);
    if (!end) return { removed: 0, last: undefined };
    const ids = page.map((row) => row.id);
    const referenced = await this.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .distinct()
      .where('event_id', 'in', ids)
      .execute();
    const kept = new Set(referenced.map((row) => row.event_id));
    const unreferenced = ids.filter((id) => !kept.has(id));
    const result =
      unreferenced.length === 0
        ? undefined
        : await this.db.deleteFrom('webhook_events').where('id', 'in', unreferenced).executeTakeFirst();
    return { removed: Number(result?.numDeletedRows ?? 0), last: { createdAt: end.created_at, id: end.id } };
  }

  async disableEndpoint(id: string, now: string, reason: string): Promise<void> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: now, disabled_reason: reason, updated_at: now })
      .where('id', '=', id)
      .execute();
  }
}
