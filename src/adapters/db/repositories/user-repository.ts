import type { Kysely, Transaction } from 'kysely';
import type { GlobalSchema, UserRow } from '../schema.js';

type Db = Kysely<GlobalSchema> | Transaction<GlobalSchema>;

/**
 * What the users API writes to the global users table (places in organizations are
 * OrganizationMemberRepository's), and a few reads of many users at once.
 */
export class UserRepository {
  constructor(readonly db: Kysely<GlobalSchema>) {}

  /** Users of the organization among the ids, with their state there. */
  async findMembers(orgId: string, ids: readonly string[]) {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('user_organizations as uo')
      .innerJoin('users as u', 'u.id', 'uo.user_id')
      .select([
        'u.id',
        'u.email',
        'u.first_name',
        'u.last_name',
        'u.kind',
        'u.deactivated_at',
        'uo.deactivated_at as member_deactivated_at',
      ])
      .where('uo.org_id', '=', orgId)
      .where('u.id', 'in', ids)
      .execute();
  }

  async update(
    db: Db,
    id: string,
    fields: Partial<Pick<UserRow, 'first_name' | 'last_name' | 'deactivated_at' | 'tokens_not_before' | 'updated_at'>>,
  ) {
    await db.updateTable('users').set(fields).where('id', '=', id).execute();
  }

  /** The client id of the application a service user was created with, while it exists. */
  async applicationOf(db: Db, serviceUserId: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('oauth_applications')
      .select('client_id')
      .where('service_user_id', '=', serviceUserId)
      .executeTakeFirst();
    return row?.client_id;
  }

  /** Ends the grants an application issued so far: their refresh and access tokens are refused. */
  async endApplicationGrants(db: Db, clientId: string, at: string): Promise<void> {
    await db
      .updateTable('oauth_applications')
      .set({ grants_not_before: at, updated_at: at })
      .where('client_id', '=', clientId)
      .execute();
  }
}
