import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The registry of running workers (adapters/jobs/sqlite-job-store.ts): the deployment's processing
 * capacity is the sum of the slots of the registrations that have not expired. On PostgreSQL the
 * table lives beside pg-boss in the job schema (pg-boss-job-store.ts), so it is made only on SQLite.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') return;
  await db.schema
    .createTable('job_workers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slots', 'integer', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
