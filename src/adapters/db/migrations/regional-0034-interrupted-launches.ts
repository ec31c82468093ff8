import { type Kysely, sql } from 'kysely';

/**
 * The housekeeper's look for launches a dying process left pending (docs/uploads.md,
 * "Processing"): a partial index holds only the processings whose launch is pending, a handful
 * at most, however many processings a region has. Only adds (docs/upgrades.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('processings_launch_pending')
    .on('processings')
    .column('created_at')
    .where(sql.ref('launch_pending'), '=', 1)
    .execute();
}
