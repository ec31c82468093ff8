import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * An index for name search that contains text anywhere in a name ("contains"), which a B-tree on
 * name_key cannot serve: without it every contains search scans all of the organization's nodes.
 *
 * SQLite: an FTS5 table with the trigram tokenizer over nodes.name_key (external content: it
 * stores only the index), kept in step by triggers. Only a change of name_key touches it, so
 * moves and trash updates of large subtrees do not. Its rowids are the nodes' rowids: after a
 * VACUUM (which may renumber them), run INSERT INTO node_name_search(node_name_search) VALUES('rebuild').
 *
 * PostgreSQL: pg_trgm's GIN index on name_key, which LIKE '%text%' uses directly. Creating the
 * extension needs the right to do so; without it the index is left out and search still works,
 * by scan.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') await upSqlite(db);
  else await upPostgres(db);
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE VIRTUAL TABLE node_name_search USING fts5(
    name_key, content='nodes', content_rowid='rowid', tokenize='trigram', detail='none')`.execute(db);
  await sql`CREATE TRIGGER node_name_search_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO node_name_search(rowid, name_key) VALUES (new.rowid, new.name_key);
  END`.execute(db);
  await sql`CREATE TRIGGER node_name_search_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO node_name_search(node_name_search, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
  END`.execute(db);
  await sql`CREATE TRIGGER node_name_search_update AFTER UPDATE OF name_key ON nodes BEGIN
    INSERT INTO node_name_search(node_name_search, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
    INSERT INTO node_name_search(rowid, name_key) VALUES (new.rowid, new.name_key);
  END`.execute(db);
  await sql`INSERT INTO node_name_search(node_name_search) VALUES ('rebuild')`.execute(db);
}

/** The schema that holds pg_trgm, installing it in public when it is missing and allowed. */
async function trigramSchema(db: Kysely<unknown>): Promise<string | undefined> {
  const find = async () => {
    const { rows } = await sql<{ schema: string }>`
      SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_trgm'`.execute(db);
    return rows[0]?.schema;
  };
  const existing = await find();
  if (existing) return existing;
  // A savepoint keeps a refused CREATE EXTENSION (no privilege, or another store creating it at
  // the same moment) from aborting the migration's transaction.
  await sql`SAVEPOINT rdp_pg_trgm`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`.execute(db);
    await sql`RELEASE SAVEPOINT rdp_pg_trgm`.execute(db);
  } catch {
    await sql`ROLLBACK TO SAVEPOINT rdp_pg_trgm`.execute(db);
  }
  return find();
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  const schema = await trigramSchema(db);
  if (!schema) return;
  await sql`CREATE INDEX nodes_name_trigram ON nodes USING gin (name_key ${sql.id(schema, 'gin_trgm_ops')})`.execute(db);
}
