import { type Kysely, type Migration, Migrator } from 'kysely';
import type { Dialect, Store } from '../database.js';
import * as global0001 from './global-0001-init.js';
import * as regional0001 from './regional-0001-init.js';
import * as regional0002 from './regional-0002-name-search.js';

/** A migration that may need to know the dialect (column types, collations, indexes). */
export interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

type AnyStore = Store<any>;

async function migrate(store: AnyStore, migrations: Record<string, DialectMigration>): Promise<void> {
  const provided: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(migrations)) {
    provided[name] = { up: (db) => migration.up(db, store.dialect) };
  }
  const migrator = new Migrator({
    db: store.db as Kysely<unknown>,
    provider: { getMigrations: async () => provided },
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${(error as Error).message}`);
  }
}

export function migrateGlobal(store: AnyStore): Promise<void> {
  return migrate(store, { '0001-init': global0001 });
}

export function migrateRegional(store: AnyStore): Promise<void> {
  return migrate(store, { '0001-init': regional0001, '0002-name-search': regional0002 });
}
