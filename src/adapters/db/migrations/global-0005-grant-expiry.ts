import type { Kysely } from 'kysely';

/**
 * The housekeeping job removes expired sessions by this index. Refresh tokens get none: every
 * token request inserts one, and an index more would cost each of them, where the hourly job can
 * afford a scan.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute();
}
