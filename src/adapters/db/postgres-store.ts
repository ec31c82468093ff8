import { Kysely, PostgresDialect } from 'kysely';
import type { Config } from '../../config/config.js';
import { FUZZY_CLOSENESS } from '../../domain/search/trigrams.js';
import type { Store } from './database.js';
import { connectOrExplain, openPool, ResilientPool } from './postgres-pool.js';

/** A store in its own PostgreSQL schema (made when missing), through a pool that survives lost connections. */
export async function openPostgres<Schema>(
  config: Config,
  schema: string,
  onError?: (error: Error) => void,
): Promise<Store<Schema>> {
  const url = config.databaseUrl as string;
  const bootstrap = await connectOrExplain(url);
  try {
    // IF NOT EXISTS is not safe against a concurrent creator (a unique violation): copies
    // starting together take turns under a transaction-scoped advisory lock.
    await bootstrap.query('BEGIN');
    await bootstrap.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`rdp-schema:${schema}`]);
    await bootstrap.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await bootstrap.query('COMMIT');
  } finally {
    await bootstrap.end();
  }
  const pool = openPool(
    {
      connectionString: url,
      // The threshold of pg_trgm's `%` (a placeholder setting until the extension loads) is ours, not the server's.
      options: `-c search_path="${schema}" -c pg_trgm.similarity_threshold=${FUZZY_CLOSENESS}`,
      max: config.databasePoolSize,
      application_name: 'rdp',
    },
    onError,
  );
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: new ResilientPool(pool) }) });
  return {
    db,
    dialect: 'postgres',
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}
