import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, sql, type Transaction } from 'kysely';
import type { Config } from '../../config/config.js';
import { REGIONS, type Region } from '../../domain/regions.js';
import type { PoolUse } from '../../ports/job-queue.js';
import { migrateGlobal, migrateRegional } from './migrations/index.js';
import type { GlobalSchema, RegionalSchema } from './schema.js';
import { SqliteRoutingDriver, sqliteRoutingDialect } from './sqlite-driver.js';
import { registerSqliteFunctions } from './sqlite-functions.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store<Schema> {
  db: Kysely<Schema>;
  dialect: Dialect;
  /**
   * A number that changes whenever any connection, of this process or another, commits to the
   * store: what exact read caches check. Undefined where the store has none (PostgreSQL). On
   * SQLite it is the reader connection's data_version (readAtChangeVersion reads it beside a read).
   */
  changeVersion?: () => number;
  /**
   * SQLite: a read outside a transaction with changeVersion's number read in the same snapshot
   * (SqliteRoutingDriver.readAtDataVersion). Undefined on PostgreSQL, whose reads select their
   * organization's access version in the statement itself (access-statements.ts).
   */
  readAtChangeVersion?: <R>(query: CompiledQuery) => { rows: R[]; version: number };
  /**
   * Resolves once every write transaction of this process begun before the call has ended (SQLite,
   * whose writes take turns on one connection). Undefined where writes run side by side (PostgreSQL).
   */
  writesSettled?: () => Promise<void>;
  /** The pool's connections (PostgreSQL): what the metrics report. Undefined on SQLite. */
  poolUse?: () => PoolUse;
  close(): Promise<void>;
}

/** What an exact read cache of SQLite reads its version with; empty on PostgreSQL. */
export type ChangeVersions = Pick<Store<unknown>, 'changeVersion' | 'readAtChangeVersion'>;

/**
 * Runs work in one transaction of a store: what a service is given instead of the store, when its
 * change spans several repositories' writes.
 */
export type InTransaction<Schema> = <T>(work: (tx: Transaction<Schema>) => Promise<T>) => Promise<T>;

export function transactionsOf<Schema>(db: Kysely<Schema>): InTransaction<Schema> {
  return (work) => db.transaction().execute(work);
}

export interface Stores {
  global: Store<GlobalSchema>;
  /** The regions opened (OpenStoresOptions.regions). */
  regions: Partial<Record<Region, Store<RegionalSchema>>>;
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  /** The regional stores to open; default all four. */
  regions?: readonly Region[];
  /** A pooled PostgreSQL connection lost while idle (the pool replaces it on the next use). */
  onError?: (error: Error) => void;
}

function openSqlite<Schema>(file: string): Store<Schema> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const open = () => {
    const database = new SQLite(file);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('busy_timeout = 5000');
    registerSqliteFunctions(database);
    return database;
  };
  const driver = new SqliteRoutingDriver(file, open);
  const db = new Kysely<Schema>({ dialect: sqliteRoutingDialect(driver) });
  return {
    db,
    dialect: 'sqlite',
    // The reader connection's data_version, also read beside a read in one snapshot.
    changeVersion: () => driver.dataVersion(),
    readAtChangeVersion: (query) => driver.readAtDataVersion(query),
    writesSettled: () => driver.writesSettled(),
    close: () => db.destroy(),
  };
}

async function openStore<Schema>(config: Config, name: string, onError?: (error: Error) => void): Promise<Store<Schema>> {
  if (config.databaseUrl) {
    // pg is imported only for PostgreSQL (docs/performance.md#start-up-the-causes-of-7-s).
    const { openPostgres } = await import('./postgres-store.js');
    return openPostgres<Schema>(config, `${config.databaseSchemaPrefix}_${name}`, onError);
  }
  return openSqlite<Schema>(path.join(config.dataDir, `${name}.sqlite`));
}

/** Opens the global store and the regions' stores (default all four), migrated to the current schema. */
export async function openStores(config: Config, options: OpenStoresOptions = {}): Promise<Stores> {
  const global = await openStore<GlobalSchema>(config, 'global', options.onError);
  const opened: { close(): Promise<void> }[] = [global];
  const regions: Partial<Record<Region, Store<RegionalSchema>>> = {};
  try {
    await migrateGlobal(global);
    for (const region of options.regions ?? REGIONS) {
      const store = await openStore<RegionalSchema>(config, `region_${region}`, options.onError);
      opened.push(store);
      await migrateRegional(store);
      regions[region] = store;
    }
  } catch (error) {
    await Promise.all(opened.map((store) => store.close().catch(() => undefined)));
    throw error;
  }
  return {
    global,
    regions,
    async close() {
      await Promise.all(opened.map((store) => store.close()));
    },
  };
}

/** Drops the PostgreSQL schemas of every store and of the job queue: used by tests that made their own prefix. */
export async function dropPostgresSchemas(url: string, prefix: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    for (const name of ['global', ...REGIONS.map((region) => `region_${region}`), 'jobs']) {
      await client.query(`DROP SCHEMA IF EXISTS "${prefix}_${name}" CASCADE`);
    }
  } finally {
    await client.end();
  }
}

export { sql };
