import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Subtree queries are range scans on the path ("/a/b/" to "/a/b0"): they need byte order,
  // which PostgreSQL's default collation does not give.
  const pathType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const bytesType = dialect === 'postgres' ? 'bytea' : 'blob';

  await db.schema
    .createTable('nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', pathType, (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('site_id', 'text')
    .addColumn('path', pathType, (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('is_processing', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('trashed_at', 'text')
    .addColumn('trash_root_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('nodes_parent_name').on('nodes').columns(['parent_id', 'name_key']).execute();
  await db.schema.createIndex('nodes_path').on('nodes').column('path').execute();
  await db.schema.createIndex('nodes_org_name').on('nodes').columns(['org_id', 'name_key']).execute();
  await db.schema.createIndex('nodes_trash_root').on('nodes').column('trash_root_id').execute();

  await db.schema
    .createTable('node_links')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('from_id', 'text', (c) => c.notNull())
    .addColumn('to_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('node_links_pk', ['from_id', 'kind', 'to_id'])
    .execute();
  await db.schema.createIndex('node_links_to').on('node_links').columns(['to_id', 'kind']).execute();

  await db.schema
    .createTable('node_thumbnails')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('bytes', bytesType, (c) => c.notNull())
    .addColumn('etag', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('roles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('roles_org').on('roles').column('org_id').execute();

  await db.schema
    .createTable('memberships')
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('principal_id', 'text', (c) => c.notNull())
    .addColumn('principal_type', 'text', (c) => c.notNull())
    .addColumn('role_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['node_id', 'principal_id'])
    .execute();
  await db.schema.createIndex('memberships_principal').on('memberships').column('principal_id').execute();

  await db.schema
    .createTable('groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('division_id', 'text')
    .addColumn('scim_managed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('saml_linked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('groups_org_name', ['org_id', 'name_key'])
    .execute();

  await db.schema
    .createTable('group_members')
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('group_members_user').on('group_members').column('user_id').execute();
}
