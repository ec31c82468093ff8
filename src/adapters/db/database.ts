import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../../config/config.js';
import { REGIONS, type Region } from '../../domain/regions.js';
import { migrateGlobal, migrateRegional } from './migrations/index.js';
import type { GlobalSchema, RegionalSchema } from './schema.js';
import { sqliteRoutingDialect } from './sqlite-driver.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store<Schema> {
  db: Kysely<Schema>;
  dialect: Dialect;
  /**
   * A number that changes whenever any connection, of this process or another, commits to the
   * store: what exact read caches check. Undefined where the store has none (PostgreSQL).
   */
  changeVersion?: () => number;
  close(): Promise<void>;
}

export interface Stores {
  global: Store<GlobalSchema>;
  regions: Record<Region, Store<RegionalSchema>>;
  close(): Promise<void>;
}

// int8 (COUNT, SUM, bigint columns) as numbers: sizes stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

function openSqlite<Schema>(file: string): Store<Schema> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const open = () => {
    const database = new SQLite(file);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('busy_timeout = 5000');
    return database;
  };
  const db = new Kysely<Schema>({ dialect: sqliteRoutingDialect(file, open) });
  // SQLite's data_version changes on a connection whenever another one commits; this connection
  // never writes, so every commit to the file changes what it reads.
  const versionProbe = open();
  versionProbe.pragma('query_only = 1');
  return {
    db,
    dialect: 'sqlite',
    changeVersion: () => versionProbe.pragma('data_version', { simple: true }) as number,
    close: async () => {
      await db.destroy();
      versionProbe.close();
    },
  };
}

async function openPostgres<Schema>(url: string, schema: string): Promise<Store<Schema>> {
  const bootstrap = new pg.Client({ connectionString: url });
  await bootstrap.connect();
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
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path="${schema}"`, max: 10 });
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

async function openStore<Schema>(config: Config, name: string): Promise<Store<Schema>> {
  if (config.databaseUrl) return openPostgres<Schema>(config.databaseUrl, `${config.databaseSchemaPrefix}_${name}`);
  return openSqlite<Schema>(path.join(config.dataDir, `${name}.sqlite`));
}

/** Opens the global store and one store per region, migrated to the current schema. */
export async function openStores(config: Config): Promise<Stores> {
  const global = await openStore<GlobalSchema>(config, 'global');
  await migrateGlobal(global);
  const regions = {} as Record<Region, Store<RegionalSchema>>;
  for (const region of REGIONS) {
    regions[region] = await openStore<RegionalSchema>(config, `region_${region}`);
    await migrateRegional(regions[region]);
  }
  return {
    global,
    regions,
    async close() {
      await Promise.all([global.close(), ...REGIONS.map((region) => regions[region].close())]);
    },
  };
}

/** Drops the PostgreSQL schemas of every store and of the job queue: used by tests that made their own prefix. */
export async function dropPostgresSchemas(url: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
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
