import type { Kysely } from 'kysely';

/**
 * Embed sessions (docs/design/embedding.md#embed-sessions, docs/embedding.md): a read-only token
 * for one target. Only the token's SHA-256 is kept (token_hash, unique: the lookup of every
 * embedded request). site_id is the target's site, whose read permission the session's creator
 * needs and whose layers the token's tiles come from. allowed_origins is a JSON array. A revoked
 * session keeps its row (revoked_at) so that its viewer page can still say so, framed by the same
 * origins.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('embed_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('identity_provider', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  // A housekeeping of ended sessions finds them by expiry.
  await db.schema.createIndex('embed_sessions_expiry').on('embed_sessions').column('expires_at').execute();
}
