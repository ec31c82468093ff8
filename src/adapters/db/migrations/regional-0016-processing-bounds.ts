import type { Kysely } from 'kysely';

/**
 * The extent of a processed point cloud (issue 11, twin layers): `{min, max}` of its points in
 * the file's own coordinates as JSON, for a twin layer's bounding box without reading the
 * tileset. Null for other outputs and for processings from before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('processings').addColumn('bounds', 'text').execute();
}
