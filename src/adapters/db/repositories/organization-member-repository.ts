import { type ExpressionBuilder, type Kysely, sql, type Transaction } from 'kysely';
import type { ListPage } from '../../../domain/listing/cursor.js';
import type { OrganizationMember } from '../../../domain/records/global.js';
import type { Dialect } from '../database.js';
import type { GlobalSchema, UserOrganizationRow, UserRow } from '../schema.js';
import { chunks } from './chunks.js';

type Db = Kysely<GlobalSchema> | Transaction<GlobalSchema>;

export type { OrganizationMember };

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

  private filtered(db: Db, orgId: string, filter: MemberFilter, placesFirst = false) {
    const places = db.selectFrom('user_organizations as uo');
    let query = (
      placesFirst
        ? places.crossJoin('users as u').whereRef('u.id', '=', 'uo.user_id')
        : places.innerJoin('users as u', 'u.id', 'uo.user_id')
    ).where('uo.org_id', '=', orgId);
    if (filter.id !== undefined) query = query.where('u.id', '=', filter.id);
    if (filter.email !== undefined) query = query.where('u.email', '=', filter.email.toLowerCase());
    if (filter.externalId !== undefined) query = query.where('uo.scim_external_id', '=', filter.externalId);
    if (filter.kind !== undefined) query = query.where('u.kind', '=', filter.kind);
    const active = filter.active;
    if (active !== undefined) query = query.where((eb) => (active ? isActive(eb) : eb.not(isActive(eb))));
    return query;
  }

  private members(db: Db, orgId: string, filter: MemberFilter = {}, placesFirst = false) {
    return this.filtered(db, orgId, filter, placesFirst)
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

  /**
   * A page in the order asked for, by id within equal values: after a cursor's key ([email or
   * joined, id]) or by offset. Both columns of a key come from one table, so that a cursor's next
   * page starts by an index range (users by e-mail; the organization's places in the order they
   * joined, global-0012) rather than filtering what it walks. In join order the places lead
   * (CROSS JOIN fixes SQLite's join order; PostgreSQL plans it as the inner join it is): SQLite
   * otherwise scans every user and sorts the organization's.
   */
  async list(orgId: string, filter: MemberFilter, page: ListPage, order: MemberOrder = 'email'): Promise<OrganizationMember[]> {
    const [column, id] = order === 'email' ? (['u.email', 'u.id'] as const) : (['uo.created_at', 'uo.user_id'] as const);
    let query = this.members(this.db, orgId, filter, order === 'joined');
    const [after, afterId] = page.after ?? [];
    if (after !== undefined && afterId !== undefined) {
      query = query.where(sql<boolean>`(${sql.ref(column)}, ${sql.ref(id)}) > (${after}, ${afterId})`);
    }
    return query
      .orderBy(column)
      .orderBy(id)
      .limit(page.limit)
      .offset(page.after ? 0 : page.offset)
      .execute();
  }

  /** From the organization's places (SQLite would otherwise scan every user of every organization). */
  async count(orgId: string, filter: MemberFilter, db: Db = this.db): Promise<number> {
    const row = await this.filtered(db, orgId, filter, true)
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
