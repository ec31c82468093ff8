import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The embedded job queue (adapters/jobs/sqlite-job-store.ts). On PostgreSQL the queue is pg-boss
 * in a schema of its own, so the table is made only on SQLite.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') return;
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('payload_version', 'integer', (c) => c.notNull())
    .addColumn('singleton_key', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('progress', 'real')
    .addColumn('lease', 'text')
    .addColumn('heartbeat_at', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  // SQLite counts NULLs as distinct, so only keyed jobs are held to one per key.
  await db.schema.createIndex('jobs_singleton').on('jobs').columns(['kind', 'singleton_key']).unique().execute();
  // Claiming takes the oldest queued jobs; the watchdog scans the running ones.
  await db.schema.createIndex('jobs_state').on('jobs').columns(['state', 'created_at']).execute();
}
