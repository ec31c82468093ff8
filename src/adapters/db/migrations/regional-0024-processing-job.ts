import type { Kysely } from 'kysely';

/**
 * The job that runs a processing, recorded when it starts, so that the API can show the job's
 * progress (0..1) while it runs (GET /v1/bundles/{id}?expand=processings). Null while queued and
 * for processings from before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('processings').addColumn('job_id', 'text').execute();
}
