import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Model assets (library models placed in a twin, docs/twins.md "Model assets"): the library model
 * a placement names gets a column of its own, so "is this model placed anywhere" and joins with
 * library_models are an index lookup instead of a scan of JSON bodies.
 *
 * twin_objects.library_model_id: set on modelAsset rows (null for the other kinds).
 * twin_draft_changes.library_model_id: set on a change of a model asset (added: the model it
 * places; modified or removed: the live object's model), so a model placed only by an open draft
 * counts as placed too (LibraryModelRepository.countPlacements) and its deletion can be refused
 * before the draft's publish would fail. A placement's model never changes (PATCH cannot name
 * another), so the column set at the change's first write stays right.
 *
 * Rows written before this migration carry the id in their JSON only: they are filled from it.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('twin_objects').addColumn('library_model_id', 'text').execute();
  await db.schema.createIndex('twin_objects_library_model').on('twin_objects').column('library_model_id').execute();
  await db.schema.alterTable('twin_draft_changes').addColumn('library_model_id', 'text').execute();
  await db.schema.createIndex('twin_draft_changes_library_model').on('twin_draft_changes').column('library_model_id').execute();
  await fillLibraryModelIds(db, dialect);
}

/** The column filled from the JSON of model-asset rows and changes written before it existed. */
export async function fillLibraryModelIds(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const field = (column: string) =>
    dialect === 'postgres'
      ? sql`(${sql.ref(column)}::json ->> 'libraryModelId')`
      : sql`json_extract(${sql.ref(column)}, '$.libraryModelId')`;
  await sql`UPDATE twin_objects SET library_model_id = ${field('body')} WHERE object_type = 'modelAsset'`.execute(db);
  await sql`UPDATE twin_draft_changes SET library_model_id = ${field('fields')}
    WHERE object_type = 'modelAsset' AND kind = 'added'`.execute(db);
  await sql`UPDATE twin_draft_changes SET library_model_id = (
      SELECT o.library_model_id FROM twin_objects o WHERE o.id = twin_draft_changes.object_id)
    WHERE object_type = 'modelAsset' AND kind <> 'added'`.execute(db);
}
