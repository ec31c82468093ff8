import { type Kysely, sql, type Transaction } from 'kysely';
import type { ListPage } from '../../../domain/listing/cursor.js';
import type { InvitationRow, InvitationState, RegionalSchema } from '../schema.js';
import { isUniqueViolation } from '../unique-violation.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

export interface InvitationFilter {
  nodeId?: string;
  state?: Exclude<InvitationState, 'sending'>;
}

/** Invitations of a region's organizations, and the membership their acceptance gives. */
export class InvitationRepository {
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
    const filtered = () => {
      let query = this.db.selectFrom('invitations').where('org_id', '=', orgId).where('state', '!=', 'sending');
      if (filter.nodeId !== undefined) query = query.where('node_id', '=', filter.nodeId);
      if (filter.state !== undefined) query = query.where('state', '=', filter.state);
      const [afterCreated, afterId] = page.after ?? [];
      if (afterCreated !== undefined && afterId !== undefined)
        query = query.where(sql<boolean>`(created_at, id) < (${afterCreated}, ${afterId})`);
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit);
    };
    // An offset's page is chosen along invitations_list_order alone (docs/performance.md, "Lists at depth").
    const skip = page.after ? 0 : page.offset;
    if (skip === 0) return filtered().selectAll().execute();
    return this.db
      .selectFrom(filtered().select('id').offset(skip).as('page'))
      .innerJoin('invitations as i', 'i.id', 'page.id')
      .selectAll('i')
      .orderBy('i.created_at', 'desc')
      .orderBy('i.id', 'desc')
      .execute();
  }
}
