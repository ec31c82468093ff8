import { type Kysely, sql } from 'kysely';

/**
 * A node may require callers signed in through one identity provider (SSORestrictedResource),
 * for itself and its subtree. Restricted nodes are few: the access query finds those on a node's
 * path through a partial index of them per organization, which costs nothing while there are none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('nodes').addColumn('required_identity_provider', 'text').execute();
  await db.schema
    .createIndex('nodes_sso_restricted')
    .on('nodes')
    .column('org_id')
    .where(sql.ref('required_identity_provider'), 'is not', null)
    .execute();
}
