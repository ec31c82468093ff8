import type { Kysely } from 'kysely';

/**
 * Comparisons of two processed point clouds of one site (docs/comparisons.md): one row each, its
 * figures (stats, histogram) and its tiles' frame and attributes (georeference, bounds, attributes) as JSON once ready;
 * `layer_linked_at` set while the site's twin shows it as a layer. Its files are blobs under the
 * comparison's prefix. And the points a point-cloud processing tiled (`processings.point_count`),
 * which price a comparison; null for other outputs and processings from before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('comparisons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('reference_bundle_id', 'text', (c) => c.notNull())
    .addColumn('compared_bundle_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('max_distance', 'double precision', (c) => c.notNull())
    .addColumn('tolerance', 'double precision', (c) => c.notNull())
    .addColumn('cost', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('stats', 'text')
    .addColumn('histogram', 'text')
    .addColumn('georeference', 'text')
    .addColumn('bounds', 'text')
    .addColumn('attributes', 'text')
    .addColumn('job_id', 'text')
    .addColumn('layer_linked_at', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  // A site's list, oldest first (createdAt, then id), and its twin's layers.
  await db.schema.createIndex('comparisons_site').on('comparisons').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema.alterTable('processings').addColumn('point_count', 'integer').execute();
}
