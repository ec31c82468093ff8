import type { Kysely } from 'kysely';

/**
 * Uploads, bundles and processing (issue 4). `stored_objects` is the registry of every byte the
 * region keeps in the blob store, pending or finalized: quota reservations are its pending rows,
 * and removing a node moves its objects' keys to `blob_deletions`, which the housekeeping empties
 * (so a crash between the row and the bytes never leaks or loses either).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stored_objects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text')
    .addColumn('session_id', 'text')
    .addColumn('object_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('declared_bytes', 'bigint', (c) => c.notNull())
    .addColumn('reserved_bytes', 'bigint', (c) => c.notNull())
    .addColumn('stored_bytes', 'bigint')
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('multipart_upload_id', 'text')
    .addColumn('etag', 'text')
    .addColumn('format', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .execute();
  await db.schema.createIndex('stored_objects_org_state').on('stored_objects').columns(['org_id', 'state']).execute();
  await db.schema.createIndex('stored_objects_node').on('stored_objects').column('node_id').execute();
  await db.schema.createIndex('stored_objects_parent_name').on('stored_objects').columns(['parent_id', 'name_key']).execute();
  await db.schema.createIndex('stored_objects_session').on('stored_objects').column('session_id').execute();

  await db.schema
    .createTable('upload_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('bundle_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .execute();
  await db.schema.createIndex('upload_sessions_bundle').on('upload_sessions').column('bundle_id').execute();

  await db.schema
    .createTable('bundles')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('dbu_path', 'text', (c) => c.notNull())
    .addColumn('input_session_id', 'text')
    .addColumn('input_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('input_format', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('processings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('bundle_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('cost', 'integer', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('derivative_node_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('processings_bundle').on('processings').column('bundle_id').execute();
  await db.schema
    .createIndex('processings_idempotency')
    .on('processings')
    .columns(['bundle_id', 'idempotency_key'])
    .unique()
    .execute();
  await db.schema.createIndex('processings_org_state').on('processings').columns(['org_id', 'state']).execute();

  await db.schema
    .createTable('blob_deletions')
    .addColumn('blob_key', 'text', (c) => c.primaryKey())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .execute();
}
