import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { CursorKey } from '../../../domain/listing/cursor.js';
import type { AuditEventRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** Who acted: a token's principal, an identity provider's SCIM token, an invitee accepting, or the admin CLI. */
export interface AuditActor {
  type: AuditEventRow['actor_type'];
  id: string;
}

export interface AuditEntry {
  orgId: string;
  actor: AuditActor;
  action: string;
  target: { type: AuditEventRow['target_type']; id: string };
  details?: Record<string, unknown>;
  at: string;
}

export interface AuditFilter {
  action?: string;
  targetType?: string;
  targetId?: string;
  actorId?: string;
  since?: string;
  until?: string;
}

/**
 * The audit trail of people and permissions. A change records its event in its own
 * transaction (pass the transaction), so the trail never shows a change that did not happen.
 */
export class AuditRepository {
  constructor(readonly db: Kysely<RegionalSchema>) {}

  async record(db: Db, entry: AuditEntry): Promise<void> {
    await db
      .insertInto('audit_events')
      .values({
        id: randomUUID(),
        org_id: entry.orgId,
        occurred_at: entry.at,
        actor_type: entry.actor.type,
        actor_id: entry.actor.id,
        action: entry.action,
        target_type: entry.target.type,
        target_id: entry.target.id,
        details: JSON.stringify(entry.details ?? {}),
      })
      .execute();
  }

  /** Newest first, by id within an instant: after a cursor's key ([occurred_at, id]) or by offset. */
  async list(orgId: string, filter: AuditFilter, limit: number, offset: number, after?: CursorKey): Promise<AuditEventRow[]> {
    let query = this.db.selectFrom('audit_events').selectAll().where('org_id', '=', orgId);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.targetType !== undefined)
      query = query.where('target_type', '=', filter.targetType as AuditEventRow['target_type']);
    if (filter.targetId !== undefined) query = query.where('target_id', '=', filter.targetId);
    if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
    if (filter.since !== undefined) query = query.where('occurred_at', '>=', filter.since);
    if (filter.until !== undefined) query = query.where('occurred_at', '<', filter.until);
    const [occurredAt, id] = after ?? [];
    if (occurredAt !== undefined && id !== undefined)
      query = query.where(sql<boolean>`(occurred_at, id) < (${occurredAt}, ${id})`);
    return query
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(after ? 0 : offset)
      .execute();
  }

  /**
   * Removes up to `limit` events that occurred before `cutoff`: the ids found through
   * audit_events_occurred, then those rows by primary key (docs/operations.md, "Retention").
   */
  async deleteBefore(cutoff: string, limit: number): Promise<number> {
    const rows = await this.db.selectFrom('audit_events').select('id').where('occurred_at', '<', cutoff).limit(limit).execute();
    if (rows.length === 0) return 0;
    const result = await this.db
      .deleteFrom('audit_events')
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
