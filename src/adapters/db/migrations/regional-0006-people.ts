import { type Kysely, sql } from 'kysely';
import { ADMINISTRATIVE_ROLES } from '../../../domain/people/roles.js';

/**
 * People and permissions of a region.
 * - Roles are keyed by organization and id: administrative roles get the catalog's fixed ids
 *   (the same in every organization), custom roles keep their UUIDs; memberships follow.
 * - Custom role names are unique within an organization (name_key).
 * - Invitations, with one live invitation per node and address; the audit trail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('roles_next')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('roles_next_pk', ['org_id', 'id'])
    .execute();
  for (const role of ADMINISTRATIVE_ROLES) {
    // Memberships first, while the old ids can still be found by name.
    await sql`UPDATE memberships SET role_id = ${role.id}
      WHERE role_id IN (SELECT id FROM roles WHERE kind = 'administrative' AND name = ${role.name})`.execute(db);
  }
  await sql`INSERT INTO roles_next (org_id, id, name, name_key, kind, permissions, created_at, updated_at)
    SELECT org_id,
      CASE ${sql.join(
        ADMINISTRATIVE_ROLES.map((role) => sql`WHEN kind = 'administrative' AND name = ${role.name} THEN ${role.id}`),
        sql` `,
      )} ELSE id END,
      name, lower(name), kind, permissions, created_at, updated_at
    FROM roles`.execute(db);
  await db.schema.dropTable('roles').execute();
  await db.schema.alterTable('roles_next').renameTo('roles').execute();
  await db.schema.createIndex('roles_org_name').on('roles').columns(['org_id', 'name_key']).unique().execute();
  await db.schema.createIndex('memberships_role').on('memberships').column('role_id').execute();

  await db.schema.alterTable('groups').addColumn('scim_external_id', 'text').execute();
  await db.schema.createIndex('groups_division').on('groups').column('division_id').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('accepted_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .execute();
  // One live invitation per node and address: two concurrent invitations cannot both be stored.
  await db.schema
    .createIndex('invitations_live')
    .on('invitations')
    .columns(['node_id', 'email'])
    .unique()
    .where(sql.ref('state'), 'in', ['sending', 'pending'])
    .execute();
  await db.schema.createIndex('invitations_org').on('invitations').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_events_org').on('audit_events').columns(['org_id', 'occurred_at', 'id']).execute();
}
