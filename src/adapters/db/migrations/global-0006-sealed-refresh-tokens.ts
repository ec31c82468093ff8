import type { Kysely } from 'kysely';

/**
 * Refresh tokens become sealed and self-describing (src/oauth/refresh-tokens.ts): issuing one
 * writes nothing. The store keeps the key that seals them, the hash of each token once used
 * (rotation and reuse detection), the revoked families, and per application the instant before
 * which its grants no longer count. Refresh tokens issued before this migration stop working:
 * their clients sign in again (client credentials simply ask again).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('refresh_token_uses')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('family_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refresh_token_uses_expiry').on('refresh_token_uses').column('expires_at').execute();
  await db.schema
    .createTable('revoked_grants')
    .addColumn('family_id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('revoked_grants_expiry').on('revoked_grants').column('expires_at').execute();
  await db.schema.alterTable('oauth_applications').addColumn('grants_not_before', 'text').execute();
  await db.schema.dropTable('refresh_tokens').execute();
}
