import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Business-object search over an organization's live twin objects (docs/twins.md, "Business-object
 * search"): indexes so that a search's cost follows its matches, not the organization's objects.
 *
 * Both stores: (org_id, name_key, id) for exact and startsWith; (org_id, updated_at, id) and
 * (org_id, created_at, id) for the date orders; the organization's sites by a partial index, which
 * the search reads to keep the sites the caller may read.
 *
 * PostgreSQL: name_key in byte order (collation "C", as nodes.name_key), so startsWith's range and
 * the name order are those of SQLite; pg_trgm GIN indexes on name_key (contains: LIKE '%text%') and
 * on name (fuzzy: the `%` operator, closeness = similarity(name, text)).
 *
 * SQLite: an FTS5 trigram table over name_key (external content, as node_name_search), kept in step
 * by triggers, for contains.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`ALTER TABLE twin_objects ALTER COLUMN name_key TYPE text COLLATE "C"`.execute(db);
  }
  await db.schema.createIndex('twin_objects_org_name').on('twin_objects').columns(['org_id', 'name_key', 'id']).execute();
  await db.schema.createIndex('twin_objects_org_updated').on('twin_objects').columns(['org_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('twin_objects_org_created').on('twin_objects').columns(['org_id', 'created_at', 'id']).execute();
  await sql`CREATE INDEX nodes_org_sites ON nodes (org_id) WHERE kind = 'site'`.execute(db);
  if (dialect === 'postgres') await upPostgres(db);
  else await upSqlite(db);
}

async function upPostgres(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ schema: string }>`
    SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm'`.execute(db);
  // regional-0013 made sure the extension is there.
  const ops = sql.id(rows[0]?.schema as string, 'gin_trgm_ops');
  await sql`CREATE INDEX twin_objects_name_key_trigram ON twin_objects USING gin (name_key ${ops})`.execute(db);
  await sql`CREATE INDEX twin_objects_name_trigram ON twin_objects USING gin (name ${ops})`.execute(db);
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  await sql`CREATE VIRTUAL TABLE twin_object_name_search USING fts5(
    name_key, content='twin_objects', content_rowid='rowid', tokenize='trigram', detail='none')`.execute(db);
  await sql`CREATE TRIGGER twin_object_name_search_insert AFTER INSERT ON twin_objects BEGIN
    INSERT INTO twin_object_name_search(rowid, name_key) VALUES (new.rowid, new.name_key);
  END`.execute(db);
  await sql`CREATE TRIGGER twin_object_name_search_delete AFTER DELETE ON twin_objects BEGIN
    INSERT INTO twin_object_name_search(twin_object_name_search, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
  END`.execute(db);
  await sql`CREATE TRIGGER twin_object_name_search_update AFTER UPDATE OF name_key ON twin_objects BEGIN
    INSERT INTO twin_object_name_search(twin_object_name_search, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
    INSERT INTO twin_object_name_search(rowid, name_key) VALUES (new.rowid, new.name_key);
  END`.execute(db);
  await sql`INSERT INTO twin_object_name_search(twin_object_name_search) VALUES ('rebuild')`.execute(db);
}
