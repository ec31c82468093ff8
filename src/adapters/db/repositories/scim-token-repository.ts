import type { Kysely } from 'kysely';
import type { GlobalSchema, OrganizationRow, ScimTokenRow } from '../schema.js';

/** The SCIM bearer tokens of organizations' identity providers; only their SHA-256 is kept. */
export class ScimTokenRepository {
  constructor(readonly db: Kysely<GlobalSchema>) {}

  async insert(row: ScimTokenRow): Promise<void> {
    await this.db.insertInto('scim_tokens').values(row).execute();
  }

  async list(orgId: string): Promise<ScimTokenRow[]> {
    return this.db
      .selectFrom('scim_tokens')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** A token with what a SCIM request needs of its organization, in one query. */
  async findWithOrganization(
    tokenHash: string,
  ): Promise<(ScimTokenRow & Pick<OrganizationRow, 'region' | 'email_domains'>) | undefined> {
    return this.db
      .selectFrom('scim_tokens as t')
      .innerJoin('organizations as o', 'o.id', 't.org_id')
      .selectAll('t')
      .select(['o.region', 'o.email_domains'])
      .where('t.token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  /** Deletes an organization's token; false when it has none with that id. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('scim_tokens').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.updateTable('scim_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}
