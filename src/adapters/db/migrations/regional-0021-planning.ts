import type { Kysely } from 'kysely';

/**
 * Planning projects (docs/design/planning.md#projects, docs/planning.md). A project is a node of
 * the tree (kind planningProject, linked to its bundle by a node_links row of kind dependant); what
 * it holds lives here.
 *
 * planning_layouts: a project's layouts, one made with it as its default (is_default 1). No
 * site_id: the project's site is its node's (nodes.site_id), which a move of the bundle and its
 * project may change; a copy here would go stale. Index (project_id, created_at, id) for the list.
 *
 * planning_model_assets: library models placed in a layout, apart from twin_objects (a layout is
 * a plan, not the twin: nothing the twin reads can meet these rows, and no twin query needs a
 * filter to leave them out). The same fields as a twin's model asset: body holds position,
 * rotation and scale as JSON; library_model_id has its column (indexed) so the library's delete
 * counts placements by index, as for twin_objects. project_id lets a project's removal delete its
 * placements in one statement. Index (layout_id, created_at, id) for the list and the counts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('planning_layouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('planning_layouts_project')
    .on('planning_layouts')
    .columns(['project_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('planning_model_assets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('layout_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('library_model_id', 'text', (c) => c.notNull())
    .addColumn('metadata_type_id', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('planning_model_assets_layout')
    .on('planning_model_assets')
    .columns(['layout_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('planning_model_assets_project').on('planning_model_assets').column('project_id').execute();
  await db.schema
    .createIndex('planning_model_assets_library_model')
    .on('planning_model_assets')
    .column('library_model_id')
    .execute();
}
