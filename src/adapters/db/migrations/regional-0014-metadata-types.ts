import type { Kysely } from 'kysely';

/**
 * An organization's metadata types (docs/design/metadata.md#metadata-types, docs/twins.md "Metadata
 * types"): applies_to and properties are JSON text, checked by domain/metadata before they are
 * stored. Names are unique in the organization without regard to case (name_key): the unique index
 * is what settles two concurrent creations of one name, and it also serves the list's order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('metadata_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('applies_to', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('metadata_types_org_name').on('metadata_types').columns(['org_id', 'name_key']).unique().execute();
}
