import type { Kysely } from 'kysely';

/** An organization's own processing capacity: at most this many queued or running processings (null: only the deployment's slots). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('processing_slots', 'integer').execute();
}
