import type { Kysely, Transaction } from 'kysely';
import type { GlobalSchema, OAuthApplicationRow, OrganizationRow, UserRow } from '../schema.js';

type Db = Kysely<GlobalSchema> | Transaction<GlobalSchema>;

/**
 * The global store's directory: organizations, users (people and service users) and OAuth
 * applications. Rules about them live in the services; this only reads and writes rows.
 */
export class DirectoryRepository {
  constructor(readonly db: Kysely<GlobalSchema>) {}

  async insertOrganization(row: OrganizationRow): Promise<void> {
    await this.db.insertInto('organizations').values(row).execute();
  }

  async findOrganization(id: string): Promise<OrganizationRow | undefined> {
    return this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async updateOrganization(id: string, fields: Partial<Omit<OrganizationRow, 'id'>>): Promise<void> {
    await this.db.updateTable('organizations').set(fields).where('id', '=', id).execute();
  }

  async findUserByEmail(email: string, db: Db = this.db): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
  }

  async findUser(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Inserts a user and, when given, its organization link in one transaction. */
  async insertUser(row: UserRow, organization?: { orgId: string; isAdmin: boolean }): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('users').values(row).execute();
      if (organization) {
        await tx
          .insertInto('user_organizations')
          .values({
            user_id: row.id,
            org_id: organization.orgId,
            is_admin: organization.isAdmin ? 1 : 0,
            created_at: row.created_at,
          })
          .execute();
      }
    });
  }

  /** The organizations a user belongs to, by name: the choices of the consent page. */
  async organizationsOf(userId: string): Promise<{ id: string; name: string }[]> {
    return this.db
      .selectFrom('user_organizations')
      .innerJoin('organizations', 'organizations.id', 'user_organizations.org_id')
      .select(['organizations.id', 'organizations.name'])
      .where('user_organizations.user_id', '=', userId)
      .where('user_organizations.deactivated_at', 'is', null)
      .orderBy('organizations.name')
      .execute();
  }

  /**
   * Whether a user's tokens for an organization are still honoured, and since when: read on every
   * request, cached briefly. Active means the user is, and so is its place in the organization.
   */
  async principalStatus(userId: string, orgId: string): Promise<{ active: boolean; tokensNotBefore: string | null } | undefined> {
    const row = await this.db
      .selectFrom('users as u')
      .leftJoin('user_organizations as uo', (join) => join.onRef('uo.user_id', '=', 'u.id').on('uo.org_id', '=', orgId))
      .select([
        'u.deactivated_at',
        'u.tokens_not_before',
        'uo.user_id as linked',
        'uo.deactivated_at as link_deactivated_at',
        'uo.tokens_not_before as link_tokens_not_before',
      ])
      .where('u.id', '=', userId)
      .executeTakeFirst();
    if (!row) return undefined;
    // ISO instants in UTC compare as text.
    const notBefore = [row.tokens_not_before, row.link_tokens_not_before].filter((at): at is string => Boolean(at)).sort();
    return {
      active: row.deactivated_at === null && row.linked !== null && row.link_deactivated_at === null,
      tokensNotBefore: notBefore.at(-1) ?? null,
    };
  }

  /** The user may act in the organization: the user is active and so is its place there. */
  async isActiveIn(userId: string, orgId: string): Promise<boolean> {
    return (await this.principalStatus(userId, orgId))?.active ?? false;
  }

  async findApplication(clientId: string): Promise<OAuthApplicationRow | undefined> {
    return this.db.selectFrom('oauth_applications').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  }

  /** An application and, for client credentials, its service user: both or neither. */
  async insertApplication(row: OAuthApplicationRow, serviceUser?: UserRow): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      if (serviceUser) {
        await tx.insertInto('users').values(serviceUser).execute();
        await tx
          .insertInto('user_organizations')
          .values({ user_id: serviceUser.id, org_id: row.org_id, is_admin: 0, created_at: row.created_at })
          .execute();
      }
      await tx.insertInto('oauth_applications').values(row).execute();
    });
  }

  async listApplications(orgId: string): Promise<OAuthApplicationRow[]> {
    return this.db
      .selectFrom('oauth_applications')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .orderBy('client_id')
      .execute();
  }

  /**
   * Changes an application's row. Ending its grants is a field of it, grants_not_before: refresh
   * and access tokens issued before that instant are refused.
   */
  async updateApplication(
    clientId: string,
    fields: Partial<Omit<OAuthApplicationRow, 'client_id' | 'org_id' | 'flow'>>,
  ): Promise<void> {
    await this.db.updateTable('oauth_applications').set(fields).where('client_id', '=', clientId).execute();
  }

  /**
   * Deletes an application and deactivates its service user, at once. Its refresh tokens die
   * with it: they name a client that no longer authenticates.
   */
  async deleteApplication(clientId: string, options: { at: string; serviceUserId: string | null }): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      if (options.serviceUserId) {
        await tx
          .updateTable('users')
          .set({ deactivated_at: options.at, updated_at: options.at })
          .where('id', '=', options.serviceUserId)
          .execute();
      }
      await tx.deleteFrom('oauth_applications').where('client_id', '=', clientId).execute();
    });
  }

  /** The organizations a user administers, by name. */
  async listAdministeredOrganizations(userId: string): Promise<Pick<OrganizationRow, 'id' | 'name'>[]> {
    return this.db
      .selectFrom('user_organizations')
      .innerJoin('organizations', 'organizations.id', 'user_organizations.org_id')
      .select(['organizations.id', 'organizations.name'])
      .where('user_organizations.user_id', '=', userId)
      .where('user_organizations.is_admin', '=', 1)
      .where('user_organizations.deactivated_at', 'is', null)
      .orderBy('organizations.name')
      .orderBy('organizations.id')
      .execute();
  }
}
