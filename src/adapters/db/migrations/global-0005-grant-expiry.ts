import type { Kysely } from 'kysely';

/** The housekeeping job removes expired refresh tokens by this index instead of a table scan. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('refresh_tokens_expiry').on('refresh_tokens').column('expires_at').execute();
  await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute();
}
