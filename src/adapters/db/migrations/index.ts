import { type Kysely, sql } from 'kysely';
import type { Dialect, Store } from '../database.js';
import * as global0001 from './global-0001-init.js';
import * as global0002 from './global-0002-sessions.js';
import * as global0003 from './global-0003-authorization-codes.js';
import * as global0004 from './global-0004-rate-limits.js';
import * as global0005 from './global-0005-grant-expiry.js';
import * as global0006 from './global-0006-sealed-refresh-tokens.js';
import * as global0007 from './global-0007-jobs.js';
import * as global0008 from './global-0008-processing-slots.js';
import * as global0009 from './global-0009-people.js';
import * as global0010 from './global-0010-job-workers.js';
import * as global0012 from './global-0012-list-indexes.js';
import * as global0013 from './global-0013-command-line-client.js';
import * as global0014 from './global-0014-console-client.js';
import * as global0015 from './global-0015-people-list-order.js';
import * as regional0001 from './regional-0001-init.js';
import * as regional0002 from './regional-0002-name-search.js';
import * as regional0003 from './regional-0003-browse-order.js';
import * as regional0004 from './regional-0004-sso-restriction.js';
import * as regional0005 from './regional-0005-uploads.js';
import * as regional0006 from './regional-0006-people.js';
import * as regional0007 from './regional-0007-access-indexes.js';
import * as regional0008 from './regional-0008-deletion-uploads.js';
import * as regional0009 from './regional-0009-deletion-claims.js';
import * as regional0010 from './regional-0010-access-versions.js';
import * as regional0011 from './regional-0011-list-indexes.js';
import * as regional0012 from './regional-0012-processing-georeference.js';
import * as regional0013 from './regional-0013-name-closeness.js';
import * as regional0014 from './regional-0014-metadata-types.js';
import * as regional0015 from './regional-0015-twins.js';
import * as regional0016 from './regional-0016-processing-bounds.js';
import * as regional0017 from './regional-0017-business-object-search.js';
import * as regional0018 from './regional-0018-asset-library.js';
import * as regional0020 from './regional-0020-model-assets.js';
import * as regional0021 from './regional-0021-planning.js';
import * as regional0022 from './regional-0022-embed-sessions.js';
import * as regional0023 from './regional-0023-webhooks.js';
import * as regional0024 from './regional-0024-processing-job.js';
import * as regional0025 from './regional-0025-processing-attributes.js';
import * as regional0026 from './regional-0026-input-triangles.js';
import * as regional0027 from './regional-0027-comparisons.js';
import * as regional0028 from './regional-0028-comparison-bytes.js';
import * as regional0029 from './regional-0029-embed-session-purpose.js';
import * as regional0030 from './regional-0030-retention-indexes.js';
import * as regional0031 from './regional-0031-processing-launch.js';
import * as regional0032 from './regional-0032-list-order-indexes.js';
import * as regional0033 from './regional-0033-list-versions.js';
import * as regional0034 from './regional-0034-interrupted-launches.js';

/** A migration that may need to know the dialect (column types, collations, indexes). */
export interface DialectMigration {
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

type AnyStore = Store<any>;

/**
 * Applies the migrations a store has not seen, in name order, all in one transaction that
 * holds the store's migration lock, so copies starting together apply each exactly once.
 * Only this store's own table is read: Kysely's Migrator introspects every schema of the
 * database and fails when another store's schema is dropped at the same moment.
 */
async function migrate(store: AnyStore, migrations: Record<string, DialectMigration>): Promise<void> {
  await store.db.connection().execute(async (connection) => {
    // SQLite: take the write lock up front, so two processes never both read and then both write.
    await sql.raw(store.dialect === 'postgres' ? 'begin' : 'begin immediate').execute(connection);
    try {
      if (store.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(current_schema()))`.execute(connection);
      await connection.schema
        .createTable('rdp_migrations')
        .ifNotExists()
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('applied_at', 'text', (c) => c.notNull())
        .execute();
      const applied = new Set((await connection.selectFrom('rdp_migrations').select('name').execute()).map((row) => row.name));
      for (const name of Object.keys(migrations).sort()) {
        if (applied.has(name)) continue;
        try {
          await migrations[name]?.up(connection, store.dialect);
        } catch (error) {
          throw new Error(`database migration ${name} failed: ${(error as Error).message}`, { cause: error });
        }
        await connection.insertInto('rdp_migrations').values({ name, applied_at: new Date().toISOString() }).execute();
      }
      await sql`commit`.execute(connection);
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}

export function migrateGlobal(store: AnyStore): Promise<void> {
  return migrate(store, {
    '0001-init': global0001,
    '0002-sessions': global0002,
    '0003-authorization-codes': global0003,
    '0004-rate-limits': global0004,
    '0005-grant-expiry': global0005,
    '0006-sealed-refresh-tokens': global0006,
    '0007-jobs': global0007,
    '0008-processing-slots': global0008,
    '0009-people': global0009,
    '0010-job-workers': global0010,
    '0012-list-indexes': global0012,
    '0013-command-line-client': global0013,
    '0014-console-client': global0014,
    '0015-people-list-order': global0015,
  });
}

export function migrateRegional(store: AnyStore): Promise<void> {
  return migrate(store, {
    '0001-init': regional0001,
    '0002-name-search': regional0002,
    '0003-browse-order': regional0003,
    '0004-sso-restriction': regional0004,
    '0005-uploads': regional0005,
    '0006-people': regional0006,
    '0007-access-indexes': regional0007,
    '0008-deletion-uploads': regional0008,
    '0009-deletion-claims': regional0009,
    '0010-access-versions': regional0010,
    '0011-list-indexes': regional0011,
    '0012-processing-georeference': regional0012,
    '0013-name-closeness': regional0013,
    '0014-metadata-types': regional0014,
    '0015-twins': regional0015,
    '0016-processing-bounds': regional0016,
    '0017-business-object-search': regional0017,
    '0018-asset-library': regional0018,
    '0020-model-assets': regional0020,
    '0021-planning': regional0021,
    '0022-embed-sessions': regional0022,
    '0023-webhooks': regional0023,
    '0024-processing-job': regional0024,
    '0025-processing-attributes': regional0025,
    '0026-input-triangles': regional0026,
    '0027-comparisons': regional0027,
    '0028-comparison-bytes': regional0028,
    '0029-embed-session-purpose': regional0029,
    '0030-retention-indexes': regional0030,
    '0031-processing-launch': regional0031,
    '0032-list-order-indexes': regional0032,
    '0033-list-versions': regional0033,
    '0034-interrupted-launches': regional0034,
  });
}
