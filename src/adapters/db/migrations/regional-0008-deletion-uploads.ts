import type { Kysely } from 'kysely';

/**
 * A queued deletion may name the multipart upload still open under its key: removing a node
 * whose upload is pending, or expiring an upload, then aborts it there, so no part outlives its
 * row (the filesystem keeps parts apart from the key, and S3 keeps them until aborted).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('blob_deletions').addColumn('upload_id', 'text').execute();
}
