import type { Kysely } from 'kysely';

/**
 * The organization's asset library (docs/design/asset-library.md, docs/asset-library.md): models,
 * tags and which tags a model carries.
 *
 * library_models holds a model's whole life in one row, as stored_objects does for site files:
 * the declared upload (file_name, declared_bytes, blob_key, multipart_upload_id, reserved_bytes
 * counted against the storage quota, upload_expires_at), what finalize learned from the bytes
 * (stored_bytes, etag, format, previewable), and what the worker made from them (preview and
 * thumbnail keys and sizes). status is pendingUpload | processing | ready | failed;
 * preview_unavailable_reason is OriginalTooLarge | UnsupportedFormat | Processing or null.
 *
 * library_tags: names unique in the organization without regard to case (name_key, the unique
 * index that settles concurrent creations of one name and serves the list's order).
 *
 * library_model_tags: one row per (model, tag). The (tag_id, model_id) index serves a tag's
 * model count and the unassigning of a deleted tag; the primary key serves a model's tags.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('library_models')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('declared_bytes', 'bigint', (c) => c.notNull())
    .addColumn('reserved_bytes', 'bigint', (c) => c.notNull())
    .addColumn('stored_bytes', 'bigint')
    .addColumn('blob_key', 'text', (c) => c.notNull().unique())
    .addColumn('multipart_upload_id', 'text')
    .addColumn('upload_expires_at', 'text')
    .addColumn('etag', 'text')
    .addColumn('format', 'text')
    .addColumn('previewable', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('preview_unavailable_reason', 'text')
    .addColumn('preview_blob_key', 'text')
    .addColumn('preview_bytes', 'bigint')
    .addColumn('thumbnail_blob_key', 'text')
    .addColumn('thumbnail_bytes', 'bigint')
    .addColumn('failure_reason', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .execute();
  await db.schema.createIndex('library_models_org_name').on('library_models').columns(['org_id', 'name_key', 'id']).execute();
  await db.schema
    .createIndex('library_models_org_created')
    .on('library_models')
    .columns(['org_id', 'created_at', 'id'])
    .execute();
  // The housekeeping that ends abandoned uploads finds them by status and expiry.
  await db.schema.createIndex('library_models_pending').on('library_models').columns(['status', 'upload_expires_at']).execute();

  await db.schema
    .createTable('library_tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('color', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('library_tags_org_name').on('library_tags').columns(['org_id', 'name_key']).unique().execute();

  await db.schema
    .createTable('library_model_tags')
    .addColumn('model_id', 'text', (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('library_model_tags_pk', ['model_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('library_model_tags_tag').on('library_model_tags').columns(['tag_id', 'model_id']).execute();
}
