import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config.js';
import { connectOrExplain, redactUrl } from './postgres-pool.js';

/** Where the global store of a configuration lives, and whether it is there. */
export interface StorePresence {
  exists: boolean;
  /** For a person: the SQLite file's path, or the PostgreSQL schema and database. */
  where: string;
}

/**
 * Looks for the global store without creating anything: the command line uses it so that a
 * data directory or database other than the server's is refused, not filled with a new empty store.
 */
export async function globalStorePresence(config: Config): Promise<StorePresence> {
  if (!config.databaseUrl) {
    const file = path.join(config.dataDir, 'global.sqlite');
    return { exists: fs.existsSync(file), where: `the SQLite file ${file} (RDP_DATA_DIR=${config.dataDir})` };
  }
  const schema = `${config.databaseSchemaPrefix}_global`;
  const client = await connectOrExplain(config.databaseUrl);
  try {
    const found = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
    return {
      exists: (found.rowCount ?? 0) > 0,
      where: `the PostgreSQL schema ${schema} at RDP_DATABASE_URL=${redactUrl(config.databaseUrl)}`,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}
