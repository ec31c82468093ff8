import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { TestPlatform } from './platform.js';

/**
 * Runs one statement on a platform's store through a connection of its own, as another process
 * would (`?` placeholders): `store` is `global` or `region_<id>`.
 */
export async function runElsewhere(t: TestPlatform, store: string, statement: string, ...values: unknown[]): Promise<void> {
  const { config } = t.platform;
  if (config.databaseUrl) {
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${config.databaseSchemaPrefix}_${store}"`);
      let n = 0;
      await client.query(
        statement.replace(/\?/g, () => `$${++n}`),
        values,
      );
    } finally {
      await client.end();
    }
    return;
  }
  const db = new SQLite(`${config.dataDir}/${store}.sqlite`);
  try {
    db.prepare(statement).run(...values);
  } finally {
    db.close();
  }
}
