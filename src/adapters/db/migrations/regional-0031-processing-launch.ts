import type { Kysely } from 'kysely';

/**
 * A processing whose job is not queued yet (docs/processing.md, "Idempotency"): 1 from the
 * submission's commit until its job is queued (then 0) or the submission undone (the row goes).
 * A repeated Idempotency-Key that finds it answers 409 IdempotencyKeyInUse, never the 202 of a
 * submission that may still be undone. 0 for every row before, and for rows an earlier release
 * writes while both run (an expand-only change).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('processings')
    .addColumn('launch_pending', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
