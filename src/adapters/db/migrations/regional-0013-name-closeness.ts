import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Name closeness is pg_trgm's similarity(a, b) on both stores (docs/search.md).
 *
 * PostgreSQL: the extension is required now (regional-0002 only used its index when it could).
 * It is installed once per database, in public, unless it is there already in some schema. A
 * store's connections search only its own schema, so a `similarity(text, text)` in that schema
 * hands over to the extension's: queries name it alike on both stores, and PostgreSQL inlines the
 * call. With a body in SQL (not a string) PostgreSQL records that it depends on the extension.
 *
 * SQLite: nothing to store; sqlite-functions.ts registers the function on every connection.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const extensionSchema = await pgTrgmSchema(db);
  const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db);
  const storeSchema = rows[0]?.schema as string;
  if (extensionSchema === storeSchema) return;
  await sql`CREATE FUNCTION ${sql.id(storeSchema, 'similarity')}(a text, b text) RETURNS real
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ${sql.id(extensionSchema, 'similarity')}(a, b)`.execute(db);
}

/** The schema that holds pg_trgm, after installing it in public when it is missing. */
async function pgTrgmSchema(db: Kysely<unknown>): Promise<string> {
  const find = async () => {
    const { rows } = await sql<{ schema: string }>`
      SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_trgm'`.execute(db);
    return rows[0]?.schema;
  };
  const existing = await find();
  if (existing) return existing;
  // Stores of copies starting together migrate at once: IF NOT EXISTS is not safe against a
  // concurrent creator (a unique violation), so creators take turns.
  await sql`SELECT pg_advisory_xact_lock(hashtext('rdp-extension:pg_trgm'))`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`.execute(db);
  } catch (error) {
    throw new Error(
      `the PostgreSQL extension pg_trgm is not installed in this database, and installing it failed ` +
        `(${(error as Error).message}). Name search needs it: have the database owner or a superuser run ` +
        `CREATE EXTENSION pg_trgm; (in public, or in a schema this user has USAGE on), then start again.`,
      { cause: error },
    );
  }
  return (await find()) as string;
}
