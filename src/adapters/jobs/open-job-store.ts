import type { Config } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';
import type { JobStore } from '../../ports/job-queue.js';
import type { Stores } from '../db/database.js';
import { SqliteJobStore } from './sqlite-job-store.js';

/** The PostgreSQL schema pg-boss and the lease table live in, beside the stores' own schemas. */
export function jobSchemaName(config: Config): string {
  return `${config.databaseSchemaPrefix}_jobs`;
}

/**
 * The job queue on the deployment's store: the global SQLite store's `jobs` table embedded, or
 * pg-boss when a database URL is configured. Closing the SQLite queue leaves the store open (the
 * platform owns it); closing the pg-boss one stops pg-boss and its pool. pg-boss is imported only
 * when used (docs/performance.md#start-up-the-causes-of-7-s).
 */
export async function openJobStore(
  platform: { config: Config; clock: Clock; stores: Stores },
  onError?: (error: Error) => void,
): Promise<JobStore> {
  const { config, clock, stores } = platform;
  if (config.databaseUrl) {
    const { PgBossJobStore } = await import('./pg-boss-job-store.js');
    return PgBossJobStore.open(config.databaseUrl, jobSchemaName(config), clock, onError, config.databasePoolSize);
  }
  return new SqliteJobStore(stores.global, clock);
}
