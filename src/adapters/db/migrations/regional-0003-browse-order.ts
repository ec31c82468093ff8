import type { Kysely } from 'kysely';

/**
 * Browse lists children by name_key, then id: with id in the index the rows come out in order and
 * no sort runs per request (it cost ~15% of a browse of 20 children). It replaces the index on
 * (parent_id, name_key), which is its prefix.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('nodes_parent_name_id').on('nodes').columns(['parent_id', 'name_key', 'id']).execute();
  await db.schema.dropIndex('nodes_parent_name').execute();
}
