import type { Kysely } from 'kysely';

/**
 * Where a processing's derivative sits (issue 11): the georeference of a point cloud as JSON
 * (domain/georeferencing/georeference.ts: on the globe with its root transform, or local with
 * the reason), null for other outputs and for processings from before. The twin finds it by
 * the derivative's node, hence the index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('processings').addColumn('georeference', 'text').execute();
  await db.schema.createIndex('processings_derivative').on('processings').column('derivative_node_id').execute();
}
