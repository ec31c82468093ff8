import type { Kysely } from 'kysely';

/**
 * Every copy of a deployment runs the housekeeping: a copy claims a batch of queued deletions
 * for a while (a lease) before sending them to the blob store, so each is sent once, and the
 * claim of a copy that dies holding it lapses and is taken again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('blob_deletions').addColumn('claimed_by', 'text').execute();
  await db.schema.alterTable('blob_deletions').addColumn('claimed_until', 'text').execute();
  await db.schema.createIndex('blob_deletions_order').on('blob_deletions').columns(['requested_at', 'blob_key']).execute();
}
