import type { Kysely } from 'kysely';

/**
 * What a processed point cloud's tiles carry beside positions (docs/design/measurements.md, "Tile
 * attributes"): a JSON array, a subset of ["rgb", "intensity", "classification"], for the twin
 * layer's `attributes`. Null for processings from before, whose layers answer ["rgb"]
 * (domain/twins/twin-layers.ts): their tiles never carried intensity or classification.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('processings').addColumn('attributes', 'text').execute();
}
