import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropPostgresSchemas } from '../../src/adapters/db/database.js';
import { log, type SummaryRow } from './report.js';

/**
 * The database a benchmark runs the platform on: SQLite files in a data folder of its own, or
 * PostgreSQL (RDP_BENCH_DATABASE_URL) in schemas of a prefix of its own beside that folder (which
 * then holds only blobs and work files).
 */
export interface StoreUnderTest {
  label: 'SQLite' | 'PostgreSQL';
  dataDir: string;
  /** What a platform process needs to open this store: RDP_DATA_DIR, and on PostgreSQL the URL and prefix. */
  env: Record<string, string>;
  databaseUrl?: string;
  schemaPrefix?: string;
  remove(): Promise<void>;
}

export async function createStoreUnderTest(name: string, databaseUrl?: string): Promise<StoreUnderTest> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `rdp-bench-${name}-`));
  const schemaPrefix = databaseUrl ? `b_${randomBytes(4).toString('hex')}` : undefined;
  return {
    label: databaseUrl ? 'PostgreSQL' : 'SQLite',
    dataDir,
    env: {
      RDP_DATA_DIR: dataDir,
      ...(databaseUrl ? { RDP_DATABASE_URL: databaseUrl, RDP_DATABASE_SCHEMA_PREFIX: schemaPrefix as string } : {}),
    },
    databaseUrl,
    schemaPrefix,
    async remove() {
      if (databaseUrl) await dropPostgresSchemas(databaseUrl, schemaPrefix as string);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The databases a benchmark measures: SQLite (undefined), and PostgreSQL's URL when RDP_BENCH_DATABASE_URL is set. */
export function benchDatabases(): (string | undefined)[] {
  const databaseUrl = process.env.RDP_BENCH_DATABASE_URL;
  return databaseUrl ? [undefined, databaseUrl] : [undefined];
}

/**
 * Runs `work` on SQLite, then on PostgreSQL when RDP_BENCH_DATABASE_URL is set (and says how to
 * get it otherwise), each on a store of its own that is removed afterwards.
 */
export async function onEachStore(name: string, work: (store: StoreUnderTest) => Promise<SummaryRow[]>): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  const databases = benchDatabases();
  for (const url of databases) {
    const store = await createStoreUnderTest(name, url);
    try {
      rows.push(...(await work(store)));
    } finally {
      await store.remove();
    }
  }
  if (databases.length === 1) log(`  ${name}: PostgreSQL not measured; set RDP_BENCH_DATABASE_URL to measure it too`);
  return rows;
}
