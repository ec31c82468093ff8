import type { Kysely } from 'kysely';

/**
 * SCIM lists an organization's people in the order they joined (then by id): with both in the
 * index a page, and a cursor's next page, walks the index from where it starts instead of
 * sorting the whole organization. It replaces the index on org_id, which is its prefix.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('user_organizations_org_joined')
    .on('user_organizations')
    .columns(['org_id', 'created_at', 'user_id'])
    .execute();
  await db.schema.dropIndex('user_organizations_org').execute();
}
