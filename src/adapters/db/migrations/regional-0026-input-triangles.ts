import type { Kysely } from 'kysely';

/**
 * A mesh input's triangles as finalize counted them, which price its processing
 * (docs/processing.md, "Mesh inputs"). Null where finalize could not tell (a glTF whose JSON is
 * over the parse limit), for other inputs, and for inputs from before, which are priced by bytes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bundles').addColumn('input_triangles', 'integer').execute();
}
