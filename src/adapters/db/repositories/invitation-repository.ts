import type { Kysely, Transaction } from 'kysely';
import type { CursorKey, ListPage } from '../../../domain/listing/cursor.js';
import type { InvitationRow, InvitationState, RegionalSchema } from '../schema.js';
import { isUniqueViolation } from '../unique-violation.js';
import { type AnchorStart, atListVersion, keyBound, listVersion, OffsetAnchors } from './offset-anchors.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** The invitations list's order, newest first: when made, then id. */
const INVITATION_ORDER = ['created_at', 'id'];
const invitationKey = (row: InvitationRow): CursorKey => [row.created_at, row.id];

export interface InvitationFilter {
  nodeId?: string;
  state?: Exclude<InvitationState, 'sending'>;
}

/** Invitations of a region's organizations, and the membership their acceptance gives. */
export class InvitationRepository {
  /** Where deep offset pages of the invitations list start (docs/performance.md, "Lists at depth"). */
  readonly anchors = new OffsetAnchors();

  constructor(readonly db: Kysely<RegionalSchema>) {}

  transaction<T>(work: (tx: Transaction<RegionalSchema>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * Stores a new invitation in state `sending`, or answers false when a live one (sending or
   * pending) exists for its node and address: the partial unique index invitations_live decides,
   * so two concurrent requests cannot both store one. A `sending` row older than `staleBefore`
   * (its request died) is removed first.
   */
  async insertSending(row: InvitationRow, staleBefore: string): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx
          .deleteFrom('invitations')
          .where('node_id', '=', row.node_id)
          .where('email', '=', row.email)
          .where('state', '=', 'sending')
          .where('created_at', '<', staleBefore)
          .execute();
        await tx.insertInto('invitations').values(row).execute();
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Moves a state to the next one, if the invitation is still in the first: false otherwise. */
  async transition(
    tx: Db,
    id: string,
    from: InvitationState,
    fields: { state: InvitationState; updated_at: string; accepted_by?: string; accepted_at?: string },
  ): Promise<boolean> {
    const result = await tx
      .updateTable('invitations')
      .set(fields)
      .where('id', '=', id)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Removes an invitation whose mail was not sent. */
  async deleteSending(id: string): Promise<void> {
    await this.db.deleteFrom('invitations').where('id', '=', id).where('state', '=', 'sending').execute();
  }

  /** Removes `sending` rows left by requests that died; returns how many. */
  async deleteStaleSending(staleBefore: string): Promise<number> {
    const result = await this.db
      .deleteFrom('invitations')
      .where('state', '=', 'sending')
      .where('created_at', '<', staleBefore)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async find(orgId: string, id: string, db: Db = this.db): Promise<InvitationRow | undefined> {
    return db.selectFrom('invitations').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  async findByTokenHash(tokenHash: string): Promise<InvitationRow | undefined> {
    return this.db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /**
   * Newest first, by id within an instant: after a cursor's key ([created_at, id]) or by offset;
   * `sending` rows are not invitations yet and are never listed.
   */
  async list(orgId: string, filter: InvitationFilter, page: ListPage): Promise<InvitationRow[]> {
    const listKey = `invitations:${orgId}`;
    const filtered = (after?: CursorKey, from?: AnchorStart) => {
      let query = this.db.selectFrom('invitations').where('org_id', '=', orgId).where('state', '!=', 'sending');
      if (filter.nodeId !== undefined) query = query.where('node_id', '=', filter.nodeId);
      if (filter.state !== undefined) query = query.where('state', '=', filter.state);
      if (after) query = query.where(keyBound(INVITATION_ORDER, '<', after));
      if (from) query = query.where(keyBound(INVITATION_ORDER, '<=', from.key)).where(atListVersion(listKey, from.version));
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit);
    };
    if (page.after || page.offset === 0) return filtered(page.after).selectAll().execute();
    // An offset's page is chosen along invitations_list_order alone, from the nearest anchor
    // (docs/performance.md, "Lists at depth").
    const version = listVersion(listKey);
    const scope = ['invitations', orgId, filter.nodeId ?? '', filter.state ?? ''];
    return this.anchors.page<InvitationRow>(scope, page.offset, invitationKey, (from, skip) => {
      const start = filtered(undefined, from);
      if (skip === 0) return start.selectAll().select(version).execute();
      return this.db
        .selectFrom(start.select('id').offset(skip).as('page'))
        .innerJoin('invitations as i', 'i.id', 'page.id')
        .selectAll('i')
        .select(version)
        .orderBy('i.created_at', 'desc')
        .orderBy('i.id', 'desc')
        .execute();
    });
  }
}
