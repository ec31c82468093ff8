import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../database.js';
import type { LibraryModelRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** Models of a region's asset libraries. No rules here: the library services apply them. */
export class LibraryModelRepository {
  constructor(
    readonly db: Kysely<RegionalSchema>,
    readonly dialect: Dialect,
  ) {}

  /** The organization's model with that id: another organization's answers like a missing one. */
  async find(orgId: string, id: string, db: Db = this.db): Promise<LibraryModelRow | undefined> {
    return db.selectFrom('library_models').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The model's status for a placement (a model asset's create, or the publish of a draft that
   * adds one): on PostgreSQL held FOR SHARE until the transaction ends, so a deletion (which takes
   * the row FOR UPDATE, then counts the placements) waits for the placement and then sees it, or
   * goes first and the placement finds no model. Placements of one model never wait on each other.
   */
  async findForPlacement(orgId: string, id: string, db: Db): Promise<Pick<LibraryModelRow, 'id' | 'status'> | undefined> {
    const query = db.selectFrom('library_models').select(['id', 'status']).where('org_id', '=', orgId).where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forShare() : query).executeTakeFirst();
  }

  /**
   * How many model assets place the model: live objects, plus objects an open draft adds (a
   * published or discarded draft's changes will never be published). A draft's modified change
   * places nothing more: a PATCH cannot name another model, so its object is counted by its live
   * row, and once that row is gone the publish skips the change. Nonzero: the model is in use
   * and must not be deleted (the deletion holds the model's row FOR UPDATE first, see
   * findForPlacement).
   */
  async countPlacements(orgId: string, modelId: string, db: Db = this.db): Promise<number> {
    const live = db
      .selectFrom('twin_objects')
      .select('id as object_id')
      .where('org_id', '=', orgId)
      .where('library_model_id', '=', modelId);
    const drafted = db
      .selectFrom('twin_draft_changes as change')
      .innerJoin('twin_drafts as draft', 'draft.id', 'change.draft_id')
      .select('change.object_id')
      .where('draft.org_id', '=', orgId)
      .where('draft.status', '=', 'open')
      .where('change.library_model_id', '=', modelId)
      .where('change.kind', '=', 'added');
    const row = await db
      .selectFrom(live.union(drafted).as('placement'))
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  // The preview worker's writes

  /** A model by id alone, in any organization: the preview job's payload names no organization. */
  async findForPreview(id: string, db: Db = this.db): Promise<LibraryModelRow | undefined> {
    return db.selectFrom('library_models').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * The model `ready` with its preview, only if it is still `processing`: false when it was
   * deleted or changed meanwhile (the worker then removes what it wrote; it never brings a
   * deleted model back).
   */
  async markPreviewReady(
    id: string,
    preview: { previewBlobKey: string; previewBytes: number; thumbnailBlobKey: string; thumbnailBytes: number },
    now: string,
    db: Db = this.db,
  ): Promise<boolean> {
    const result = await db
      .updateTable('library_models')
      .set({
        status: 'ready',
        previewable: 1,
        preview_unavailable_reason: null,
        preview_blob_key: preview.previewBlobKey,
        preview_bytes: preview.previewBytes,
        thumbnail_blob_key: preview.thumbnailBlobKey,
        thumbnail_bytes: preview.thumbnailBytes,
        failure_reason: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The model `failed` with the reason, without preview, only if it is still `processing`. */
  async markPreviewFailed(id: string, reason: string, now: string, db: Db = this.db): Promise<boolean> {
    const result = await db
      .updateTable('library_models')
      .set({
        status: 'failed',
        previewable: 0,
        preview_unavailable_reason: null,
        preview_blob_key: null,
        preview_bytes: null,
        thumbnail_blob_key: null,
        thumbnail_bytes: null,
        failure_reason: reason,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
