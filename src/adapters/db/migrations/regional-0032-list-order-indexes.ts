import type { Kysely } from 'kysely';

/**
 * Indexes in the order of the people lists, holding the columns their filters read
 * (docs/performance.md, "Lists at depth"): a page by offset then skips the rows before it along
 * the index alone (SQLite's covering index, PostgreSQL's index-only scan) and reads the rows of
 * its own page only, so a page 9,000 in costs about what the first does; a cursor's page starts
 * by a range of the same index. The organization index of invitations becomes the wider one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('groups_list_order').on('groups').columns(['org_id', 'name_key', 'id', 'division_id']).execute();
  await db.schema.createIndex('groups_scim_order').on('groups').columns(['org_id', 'created_at', 'id', 'scim_managed']).execute();
  await db.schema.createIndex('roles_list_order').on('roles').columns(['org_id', 'kind', 'name_key', 'id']).execute();
  await db.schema
    .createIndex('memberships_node_order')
    .on('memberships')
    .columns(['node_id', 'created_at', 'principal_id'])
    .execute();
  await db.schema.dropIndex('invitations_org').execute();
  await db.schema
    .createIndex('invitations_list_order')
    .on('invitations')
    .columns(['org_id', 'created_at', 'id', 'state', 'node_id'])
    .execute();
}
