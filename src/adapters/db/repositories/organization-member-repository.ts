import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Dialect } from '../database.js';
import type { GlobalSchema, UserOrganizationRow, UserRow } from '../schema.js';
import { chunks } from './chunks.js';

type Db = Kysely<GlobalSchema> | Transaction<GlobalSchema>;

/** A user as an organization sees it: the global user row and its place in the organization. */
export type OrganizationMember = UserRow & {
  is_admin: number;
  scim_managed: number;
  scim_external_id: string | null;
  /** When the user was deactivated in this organization (null: active). */
  member_deactivated_at: string | null;
  joined_at: string;
  /** When its place in the organization last changed (deactivation, administrator flag). */
  member_updated_at: string | null;
};

export interface MemberFilter {
  id?: string;
  email?: string;
  /** The identity provider's id for the user's place in the organization (SCIM externalId). */
  externalId?: string;
  kind?: 'user' | 'service';
  active?: boolean;
}

/** The users API lists by e-mail; SCIM by when each joined, so pages stay put as people are added. */
export type MemberOrder = 'email' | 'joined';

/**
 * Active in the organization: the user is (a service user whose application is gone is not),
 * and so is its place there.
 */
function isActive(eb: ExpressionBuilder<GlobalSchema & { uo: UserOrganizationRow; u: UserRow }, 'uo' | 'u'>) {
  return eb.and([eb('uo.deactivated_at', 'is', null), eb('u.deactivated_at', 'is', null)]);
}

/**
 * The people of an organization in the global store: users linked to it (user_organizations),
 * their deactivation there, and its seats. A seat is an active link of a person (kind user).
 */
export class OrganizationMemberRepository {
  constructor(
    readonly db: Kysely<GlobalSchema>,
    private readonly dialect: Dialect,
  ) {}

  private filtered(db: Db, orgId: string, filter: MemberFilter) {
    let query = db
      .selectFrom('user_organizations as uo')
      .innerJoin('users as u', 'u.id', 'uo.user_id')
      .where('uo.org_id', '=', orgId);
    if (filter.id !== undefined) query = query.where('u.id', '=', filter.id);
    if (filter.email !== undefined) query = query.where('u.email', '=', filter.email.toLowerCase());
    if (filter.externalId !== undefined) query = query.where('uo.scim_external_id', '=', filter.externalId);
    if (filter.kind !== undefined) query = query.where('u.kind', '=', filter.kind);
    const active = filter.active;
    if (active !== undefined) query = query.where((eb) => (active ? isActive(eb) : eb.not(isActive(eb))));
    return query;
  }

  private members(db: Db, orgId: string, filter: MemberFilter = {}) {
    return this.filtered(db, orgId, filter)
      .selectAll('u')
      .select([
        'uo.is_admin',
        'uo.scim_managed',
        'uo.scim_external_id',
        'uo.deactivated_at as member_deactivated_at',
        'uo.created_at as joined_at',
        'uo.updated_at as member_updated_at',
      ]);
  }

  async find(orgId: string, userId: string, db: Db = this.db): Promise<OrganizationMember | undefined> {
    return this.members(db, orgId).where('u.id', '=', userId).executeTakeFirst();
  }

  /** The members among these ids (others are left out), in no particular order. */
  async findMany(orgId: string, userIds: readonly string[], db: Db = this.db): Promise<OrganizationMember[]> {
    const found: OrganizationMember[] = [];
    for (const chunk of chunks(userIds)) found.push(...(await this.members(db, orgId).where('u.id', 'in', chunk).execute()));
    return found;
  }

  async findByEmail(orgId: string, email: string, db: Db = this.db): Promise<OrganizationMember | undefined> {
    return this.members(db, orgId).where('u.email', '=', email.toLowerCase()).executeTakeFirst();
  }

  async list(
    orgId: string,
    filter: MemberFilter,
    limit: number,
    offset: number,
    order: MemberOrder = 'email',
  ): Promise<OrganizationMember[]> {
    const query = this.members(this.db, orgId, filter);
    const ordered = order === 'email' ? query.orderBy('u.email') : query.orderBy('uo.created_at');
    return ordered.orderBy('u.id').limit(limit).offset(offset).execute();
  }

  async count(orgId: string, filter: MemberFilter, db: Db = this.db): Promise<number> {
    const row = await this.filtered(db, orgId, filter)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Runs a change under the organization's lock: on PostgreSQL its row is held FOR UPDATE, so
   * changes of its seats and administrators take turns; SQLite has one writer.
   */
  async lockOrganization<T>(orgId: string, work: (tx: Transaction<GlobalSchema>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (tx) => {
      let orgQuery = tx.selectFrom('organizations').select('id').where('id', '=', orgId);
      if (this.dialect === 'postgres') orgQuery = orgQuery.forUpdate();
      await orgQuery.executeTakeFirst();
      return work(tx);
    });
  }

  /** The seats in use (active people) and the limit (null: none); exact under lockOrganization. */
  async seats(orgId: string, db: Db = this.db): Promise<{ used: number; limit: number | null }> {
    const [org, used] = await Promise.all([
      db.selectFrom('organizations').select('seat_limit').where('id', '=', orgId).executeTakeFirst(),
      this.count(orgId, { kind: 'user', active: true }, db),
    ]);
    return { used, limit: org?.seat_limit ?? null };
  }

  /** A change that may take a seat, with the seats counted under the organization's lock. */
  async withSeats<T>(
    orgId: string,
    change: (tx: Transaction<GlobalSchema>, seats: { used: number; limit: number | null }) => Promise<T>,
  ): Promise<T> {
    return this.lockOrganization(orgId, async (tx) => change(tx, await this.seats(orgId, tx)));
  }

  /** Tokens for the organization from before the user joined (an earlier place, since removed) stay refused. */
  async link(tx: Db, row: Omit<UserOrganizationRow, 'scim_managed'> & { scim_managed?: number }): Promise<void> {
    await tx
      .insertInto('user_organizations')
      .values({ ...row, tokens_not_before: row.tokens_not_before ?? row.created_at })
      .execute();
  }

  async update(
    orgId: string,
    userId: string,
    fields: {
      deactivated_at?: string | null;
      is_admin?: number;
      scim_managed?: number;
      scim_external_id?: string | null;
      updated_at?: string;
    },
    db: Db = this.db,
  ): Promise<void> {
    // A deactivation ends the tokens issued before it for good: reactivating does not revive them.
    const set = fields.deactivated_at ? { ...fields, tokens_not_before: fields.deactivated_at } : fields;
    await db.updateTable('user_organizations').set(set).where('org_id', '=', orgId).where('user_id', '=', userId).execute();
  }

  /** Ends a user's place in the organization (SCIM delete): its tokens for it stop. */
  async unlink(orgId: string, userId: string, db: Db = this.db): Promise<boolean> {
    const result = await db
      .deleteFrom('user_organizations')
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
