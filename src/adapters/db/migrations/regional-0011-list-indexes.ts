import { type Kysely, sql } from 'kysely';

/**
 * The trash list reads trash roots only (a node whose trash_root_id is its own id): a partial
 * index of them per organization in list order (newest first, then id), so its cost follows the
 * size of the trash and never the organization's. A page for a caller who reads the whole
 * organization walks a page of entries, and a cursor starts where the last page ended. With the
 * path (and trash_root_id, which the index's condition names: without it SQLite does not count
 * the index as covering) in the index, a caller who reads some subtrees checks each entry on the
 * index alone, never loading its row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('nodes_trash_roots_order')
    .on('nodes')
    .columns(['org_id', 'trashed_at desc', 'id', 'path', 'trash_root_id'])
    .where(sql<boolean>`trash_root_id = id`)
    .execute();
}
