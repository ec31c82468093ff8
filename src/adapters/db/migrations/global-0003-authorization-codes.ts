import type { Kysely } from 'kysely';

/**
 * Authorization codes of the PKCE flow, stored by the hash of the code. Each names the refresh
 * family its exchange starts, so that a second use can revoke what the first issued. Refresh
 * tokens learn how their user signed in, which a refresh copies into the new access token.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('authorization_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('identity_provider', 'text', (c) => c.notNull())
    .addColumn('family_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('authorization_codes_expiry').on('authorization_codes').column('expires_at').execute();
  await db.schema
    .alterTable('refresh_tokens')
    .addColumn('identity_provider', 'text', (c) => c.notNull().defaultTo('local'))
    .execute();
}
