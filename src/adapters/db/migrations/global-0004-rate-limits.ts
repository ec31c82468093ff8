import type { Kysely } from 'kysely';

/** An organization's own request bucket; null takes the deployment's default (RDP_RATE_LIMIT_*). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('rate_limit_bucket', 'integer').execute();
  await db.schema.alterTable('organizations').addColumn('rate_limit_refill_per_second', 'integer').execute();
}
