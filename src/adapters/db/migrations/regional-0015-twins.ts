import type { Kysely } from 'kysely';

/**
 * Twins, their drafts and their objects (docs/design/twins.md, docs/twins.md). A site has at most
 * one live twin (unique site_id: the lazy creation is an insert that does nothing on conflict).
 * Every kind of object lives in twin_objects; a draft stores only its changes, one row per object
 * (unique (draft_id, object_id)), folded as docs/twins.md says. body, fields and metadata are JSON
 * text checked by the kinds' schemas before they are stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('twins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('twin_drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('twin_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .execute();
  await db.schema.createIndex('twin_drafts_site').on('twin_drafts').columns(['site_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('twin_objects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('parent_zone_id', 'text')
    .addColumn('zone_id', 'text')
    .addColumn('metadata_type_id', 'text')
    .addColumn('metadata', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('twin_objects_site_kind')
    .on('twin_objects')
    .columns(['site_id', 'object_type', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('twin_draft_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('draft_id', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('fields', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('twin_draft_changes_object')
    .on('twin_draft_changes')
    .columns(['draft_id', 'object_id'])
    .unique()
    .execute();
}
