import { type ExpressionBuilder, type Kysely, sql, type Transaction } from 'kysely';
import { tagNameKey } from '../../../domain/library/tags.js';
import type { Dialect } from '../database.js';
import type { LibraryModelRow, LibraryTagRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/**
 * The columns a model's view and its download links read: a list selects only these (the whole
 * row cost a page of 100 about a third more on SQLite, bench/library-lists.ts).
 */
export const MODEL_VIEW_COLUMNS = [
  'id',
  'name',
  'description',
  'status',
  'file_name',
  'declared_bytes',
  'stored_bytes',
  'format',
  'etag',
  'previewable',
  'preview_unavailable_reason',
  'blob_key',
  'preview_blob_key',
  'thumbnail_blob_key',
  'failure_reason',
  'created_by',
  'created_at',
  'updated_at',
] as const;

export type ModelViewRow = Pick<LibraryModelRow, (typeof MODEL_VIEW_COLUMNS)[number]>;

/** A tag as a model shows it. */
export type ModelTag = Pick<LibraryTagRow, 'id' | 'name' | 'color'>;

/** A blob of a removed model for the deletion queue: a key, or a multipart upload to abort. */
export interface ModelBlob {
  key: string;
  uploadId?: string | null;
}

function byTagName(a: ModelTag, b: ModelTag): number {
  const [keyA, keyB] = [tagNameKey(a.name), tagNameKey(b.name)];
  return keyA < keyB ? -1 : keyA > keyB ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A model is gone once its upload expired unfinalized: the housekeeping removes the row later. */
function live(now: string) {
  return (eb: ExpressionBuilder<RegionalSchema, 'library_models'>) =>
    eb.or([eb('library_models.status', '!=', 'pendingUpload'), eb('library_models.upload_expires_at', '>', now)]);
}

/** Every blob a model row names: the original (or its open upload), the preview, the thumbnail. */
export function blobsOfModel(row: LibraryModelRow): ModelBlob[] {
  const blobs: ModelBlob[] = [{ key: row.blob_key, uploadId: row.status === 'pendingUpload' ? row.multipart_upload_id : null }];
  if (row.preview_blob_key) blobs.push({ key: row.preview_blob_key });
  if (row.thumbnail_blob_key) blobs.push({ key: row.thumbnail_blob_key });
  return blobs;
}

/** Models of a region's asset libraries. No rules here: the library services apply them. */
export class LibraryModelRepository {
  constructor(
    readonly db: Kysely<RegionalSchema>,
    readonly dialect: Dialect,
  ) {}

  /** The organization's live model (not an expired upload), for reading. */
  async findLive(orgId: string, id: string, now: string, db: Db = this.db): Promise<LibraryModelRow | undefined> {
    return db
      .selectFrom('library_models')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where(live(now))
      .executeTakeFirst();
  }

  /** The live model's row for a change in the caller's transaction: FOR UPDATE on PostgreSQL. */
  async lock(tx: Transaction<RegionalSchema>, orgId: string, id: string, now: string): Promise<LibraryModelRow | undefined> {
    const query = tx.selectFrom('library_models').selectAll().where('org_id', '=', orgId).where('id', '=', id).where(live(now));
    return (this.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  /**
   * A page of the organization's live models in name order (then id), along the (org_id,
   * name_key, id) index; with `tagIds`, only the models that carry every one of them.
   */
  async list(orgId: string, page: { limit: number; offset: number; tagIds: string[]; now: string }): Promise<ModelViewRow[]> {
    let query = this.db.selectFrom('library_models').select(MODEL_VIEW_COLUMNS).where('org_id', '=', orgId).where(live(page.now));
    for (const tagId of page.tagIds) {
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('library_model_tags')
            .select('library_model_tags.tag_id')
            .whereRef('library_model_tags.model_id', '=', 'library_models.id')
            .where('library_model_tags.tag_id', '=', tagId),
        ),
      );
    }
    return query.orderBy('name_key').orderBy('id').limit(page.limit).offset(page.offset).execute();
  }

  /** The tags of these models, in tag name order: model id to its tags (id, name, colour). */
  async tagsOf(modelIds: string[], db: Db = this.db): Promise<Map<string, ModelTag[]>> {
    const byModel = new Map<string, ModelTag[]>(modelIds.map((id) => [id, []]));
    if (modelIds.length === 0) return byModel;
    const rows = await db
      .selectFrom('library_model_tags')
      .innerJoin('library_tags', 'library_tags.id', 'library_model_tags.tag_id')
      .select(['library_model_tags.model_id', 'library_tags.id', 'library_tags.name', 'library_tags.color'])
      .where('library_model_tags.model_id', 'in', modelIds)
      .execute();
    for (const { model_id, ...tag } of rows) byModel.get(model_id)?.push(tag);
    // Sorted here rather than by the query: a few tags a model, and the store skips a sort step.
    for (const tags of byModel.values()) tags.sort(byTagName);
    return byModel;
  }

  /** Which of these ids are tags of the organization. */
  async existingTagIds(db: Db, orgId: string, tagIds: string[]): Promise<Set<string>> {
    if (tagIds.length === 0) return new Set();
    const rows = await db.selectFrom('library_tags').select('id').where('org_id', '=', orgId).where('id', 'in', tagIds).execute();
    return new Set(rows.map((row) => row.id));
  }

  async insert(tx: Db, row: LibraryModelRow): Promise<void> {
    await tx.insertInto('library_models').values(row).execute();
  }

  async update(tx: Db, id: string, fields: Partial<Omit<LibraryModelRow, 'id' | 'org_id'>>): Promise<void> {
    await tx.updateTable('library_models').set(fields).where('id', '=', id).execute();
  }

  /** Replaces the model's set of tags (ids already checked and without duplicates). */
  async setTags(tx: Db, modelId: string, tagIds: string[], now: string): Promise<void> {
    await tx.deleteFrom('library_model_tags').where('model_id', '=', modelId).execute();
    if (tagIds.length === 0) return;
    await tx
      .insertInto('library_model_tags')
      .values(tagIds.map((tagId) => ({ model_id: modelId, tag_id: tagId, created_at: now })))
      .execute();
  }

  /** Deletes the model's row and its tag rows. */
  async delete(tx: Db, id: string): Promise<void> {
    await tx.deleteFrom('library_model_tags').where('model_id', '=', id).execute();
    await tx.deleteFrom('library_models').where('id', '=', id).execute();
  }

  /**
   * Bytes the organization's library holds against its quota: the reservations of uploads still
   * open (unexpired), and the stored originals, previews and thumbnails of the others.
   */
  async bytesInUse(db: Db, orgId: string, now: string): Promise<number> {
    const row = await db
      .selectFrom('library_models')
      .select((eb) => {
        const open = eb.and([eb('status', '=', 'pendingUpload'), eb('upload_expires_at', '>', now)]);
        const held = sql<number>`coalesce(stored_bytes, 0) + coalesce(preview_bytes, 0) + coalesce(thumbnail_bytes, 0)`;
        const bytes = eb
          .case()
          .when(open)
          .then(eb.ref('reserved_bytes'))
          .when('status', '!=', 'pendingUpload')
          .then(held)
          .else(0)
          .end();
        return eb.fn.coalesce(eb.fn.sum<number>(bytes), sql<number>`0`).as('bytes');
      })
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  /**
   * Removes up to `limit` models whose upload expired unfinalized (rows and tag rows) and answers their
   * blobs for the deletion queue: their reservations stopped counting at the expiry already.
   */
  async expireUploads(tx: Db, now: string, limit: number): Promise<ModelBlob[]> {
    const expired = await tx
      .selectFrom('library_models')
      .selectAll()
      .where('status', '=', 'pendingUpload')
      .where('upload_expires_at', '<=', now)
      .orderBy('upload_expires_at')
      .limit(limit)
      .execute();
    if (expired.length === 0) return [];
    const ids = expired.map((row) => row.id);
    await tx.deleteFrom('library_model_tags').where('model_id', 'in', ids).execute();
    await tx.deleteFrom('library_models').where('id', 'in', ids).execute();
    return expired.flatMap(blobsOfModel);
  }

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
  async findForPlacement(
    orgId: string,
    id: string,
    db: Db = this.db,
  ): Promise<Pick<LibraryModelRow, 'id' | 'status'> | undefined> {
    const query = db.selectFrom('library_models').select(['id', 'status']).where('org_id', '=', orgId).where('id', '=', id);
    return (this.dialect === 'postgres' ? query.forShare() : query).executeTakeFirst();
  }

  /**
   * How many model assets place the model: live objects, objects placed in planning layouts
   * (docs/planning.md), plus objects an open draft adds (a published or discarded draft's
   * changes will never be published). A draft's modified change
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
    // A layout's placements are plans, not the twin, but the plan still needs the model (docs/planning.md).
    const planned = db
      .selectFrom('planning_model_assets')
      .select('id as object_id')
      .where('org_id', '=', orgId)
      .where('library_model_id', '=', modelId);
    const row = await db
      .selectFrom(live.union(drafted).union(planned).as('placement'))
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
