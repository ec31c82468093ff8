import type { Kysely } from 'kysely';

/**
 * The bytes a comparison's outputs (tiles and CSV) hold in the blob store, recorded when it is
 * ready: they count toward its organization's storage use as a derivative's do (docs/comparisons.md,
 * "Limits"). 0 until then, and for the comparisons made before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('comparisons')
    .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
