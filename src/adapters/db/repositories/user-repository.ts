import type { Kysely, Transaction } from 'kysely';
import type { GlobalSchema, UserRow } from '../schema.js';

type Db = Kysely<GlobalSchema> | Transaction<GlobalSchema>;

/**
 * What the users API writes to the global users table (places in organizations are
 * OrganizationMemberRepository's) and the service users' applications.
 */
export class UserRepository {
  constructor(readonly db: Kysely<GlobalSchema>) {}

  async update(
    db: Db,
    id: string,
    fields: Partial<Pick<UserRow, 'email' | 'first_name' | 'last_name' | 'deactivated_at' | 'tokens_not_before' | 'updated_at'>>,
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
