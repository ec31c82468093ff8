import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { seedOrganization } from './bench-store.js';
import { BulkTree } from './bulk-tree.js';
import type { StoreUnderTest } from './stores.js';

/** The columns BulkTree writes, in its order. */
const NODE_COLUMNS = [
  'id',
  'org_id',
  'parent_id',
  'kind',
  'name',
  'name_key',
  'address',
  'site_id',
  'path',
  'depth',
  'size_bytes',
  'is_processing',
  'is_failed',
  'trashed_at',
  'trash_root_id',
  'created_at',
  'updated_at',
];
/** Rows per INSERT: 17 parameters each, well under PostgreSQL's 65,535. */
const COPY_BATCH = 1000;

/** An organization (with an administrator application) in `store`, and a BulkTree that writes its nodes there. */
export interface TreeBuild {
  orgId: string;
  clientId: string;
  clientSecret: string;
  tree: BulkTree;
  /** Ends the build: on PostgreSQL, copies the nodes in and analyzes the table. */
  commit(): Promise<void>;
}

/**
 * A bulk tree on either store. SQLite: BulkTree writes straight into the region's file. PostgreSQL:
 * BulkTree writes into a scratch SQLite file holding only a nodes table, whose rows are then
 * copied, parents first (insertion order), in multi-row INSERTs inside one transaction, followed by
 * ANALYZE so that the first queries are planned on the real table.
 */
export async function bulkTreeOn(store: StoreUnderTest, name?: string): Promise<TreeBuild> {
  const client = await seedOrganization(store.env, name);
  if (!store.databaseUrl) {
    const tree = new BulkTree(path.join(store.dataDir, 'region_eu.sqlite'), client.orgId);
    return { ...client, tree, commit: async () => tree.commit() };
  }
  const scratch = path.join(store.dataDir, 'bulk-nodes.sqlite');
  const db = new SQLite(scratch);
  db.exec(`CREATE TABLE nodes (${NODE_COLUMNS.join(', ')})`);
  db.close();
  const tree = new BulkTree(scratch, client.orgId);
  const schema = `${store.schemaPrefix}_region_eu`;
  return {
    ...client,
    tree,
    async commit() {
      tree.commit();
      await copyNodes(scratch, store.databaseUrl as string, schema);
      fs.rmSync(scratch, { force: true });
    },
  };
}

async function copyNodes(file: string, databaseUrl: string, schema: string): Promise<void> {
  const source = new SQLite(file, { readonly: true });
  const target = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${schema}"` });
  await target.connect();
  try {
    const insert = async (rows: unknown[][]) => {
      const values = rows.map((_, r) => `(${NODE_COLUMNS.map((_, c) => `$${r * NODE_COLUMNS.length + c + 1}`).join(', ')})`);
      await target.query(`INSERT INTO nodes (${NODE_COLUMNS.join(', ')}) VALUES ${values.join(', ')}`, rows.flat());
    };
    await target.query('BEGIN');
    let batch: unknown[][] = [];
    for (const row of source.prepare('SELECT * FROM nodes ORDER BY rowid').raw().iterate() as Iterable<unknown[]>) {
      batch.push(row);
      if (batch.length === COPY_BATCH) {
        await insert(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await insert(batch);
    await target.query('COMMIT');
    await target.query('ANALYZE nodes');
  } finally {
    await target.end();
    source.close();
  }
}
