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
