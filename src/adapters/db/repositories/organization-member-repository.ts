import type { ExpressionBuilder, Kysely, RawBuilder, Transaction } from 'kysely';
import type { CursorKey, ListPage } from '../../../domain/listing/cursor.js';
import type { OrganizationMember } from '../../../domain/records/global.js';
import type { Dialect } from '../database.js';
import type { GlobalSchema, UserOrganizationRow, UserRow } from '../schema.js';
import { chunks } from './chunks.js';
import { type AnchorStart, atListVersion, keyBound, listVersion, OffsetAnchors } from './offset-anchors.js';

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

/** What a member is made of beside its user's row: its place in the organization. */
const MEMBER_COLUMNS = [
  'uo.is_admin',
  'uo.scim_managed',
  'uo.scim_external_id',
  'uo.deactivated_at as member_deactivated_at',
  'uo.created_at as joined_at',
  'uo.updated_at as member_updated_at',
] as const;

const emailKey = (row: OrganizationMember): CursorKey => [row.email, row.id];
const joinedKey = (row: OrganizationMember): CursorKey => [row.joined_at, row.id];

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
  /** Where deep offset pages of /v1/users and SCIM /Users start (docs/performance.md, "Lists at depth"). */
  readonly anchors = new OffsetAnchors();

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
    return this.filtered(db, orgId, filter, placesFirst).selectAll('u').select(MEMBER_COLUMNS);
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
   * joined, id]) or by offset. Both orders are ranges of an index of the organization's places:
   * `(org_id, email, user_id)` (the address copied beside each place, global-0015) and
   * `(org_id, created_at, user_id)` (global-0012), so a page starts by an index range and walks
   * the organization's people only. The places lead the join (CROSS JOIN fixes SQLite's join
   * order; PostgreSQL plans it as the inner join it is). A page by offset is chosen along that
   * index first, from the nearest anchor (docs/performance.md, "Lists at depth").
   */
  async list(orgId: string, filter: MemberFilter, page: ListPage, order: MemberOrder = 'email'): Promise<OrganizationMember[]> {
    const sortKey = order === 'email' ? (['uo.email', 'uo.user_id'] as const) : (['uo.created_at', 'uo.user_id'] as const);
    const listKey = `users:${orgId}`;
    const bound = <Query extends { where(condition: RawBuilder<boolean>): Query }>(
      query: Query,
      after?: CursorKey,
      from?: AnchorStart,
    ): Query => {
      if (after) return query.where(keyBound(sortKey, '>', after));
      if (from) return query.where(keyBound(sortKey, '>=', from.key)).where(atListVersion(listKey, from.version));
      return query;
    };
    const inOrder = (after?: CursorKey, from?: AnchorStart) =>
      bound(this.members(this.db, orgId, filter, true), after, from)
        .orderBy(sortKey[0])
        .orderBy(sortKey[1])
        .limit(page.limit);
    if (page.after || page.offset === 0) return inOrder(page.after).execute();
    const version = listVersion(listKey);
    const scope = ['members', order, orgId, filter.id ?? '', filter.email ?? '', filter.externalId ?? '', filter.kind ?? ''];
    scope.push(filter.active === undefined ? '' : String(filter.active));
    return this.anchors.page<OrganizationMember>(scope, page.offset, order === 'email' ? emailKey : joinedKey, (from, skip) => {
      if (skip === 0) return inOrder(undefined, from).select(version).execute();
      // The page's places are chosen along the index alone (with the users only when a filter
      // reads them), then joined to their users.
      const chosen = bound(this.placesFiltered(orgId, filter), undefined, from)
        .select('uo.user_id')
        .orderBy(sortKey[0])
        .orderBy(sortKey[1])
        .limit(page.limit)
        .offset(skip);
      // The page leads (CROSS JOIN): otherwise SQLite walks the organization's places in the
      // list's order to spare a sort of the page's rows.
      return this.db
        .selectFrom(chosen.as('page'))
        .crossJoin('user_organizations as uo')
        .crossJoin('users as u')
        .where('uo.org_id', '=', orgId)
        .whereRef('uo.user_id', '=', 'page.user_id')
        .whereRef('u.id', '=', 'uo.user_id')
        .selectAll('u')
        .select(MEMBER_COLUMNS)
        .select(version)
        .orderBy(sortKey[0])
        .orderBy(sortKey[1])
        .execute();
    });
  }

  /** The organization's places that pass the filter, joined to their users only when it reads them. */
  private placesFiltered(orgId: string, filter: MemberFilter) {
    if (filter.kind !== undefined || filter.active !== undefined) return this.filtered(this.db, orgId, filter, true);
    let query = this.db.selectFrom('user_organizations as uo').where('uo.org_id', '=', orgId);
    if (filter.id !== undefined) query = query.where('uo.user_id', '=', filter.id);
    if (filter.email !== undefined) query = query.where('uo.email', '=', filter.email.toLowerCase());
    if (filter.externalId !== undefined) query = query.where('uo.scim_external_id', '=', filter.externalId);
    return query;
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
