import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import {
  blobsOfModel,
  type LibraryModelRepository,
  type ModelViewRow,
} from '../../adapters/db/repositories/library-model-repository.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { LibraryModelRow, RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { detectModelFormat, MODEL_DETECT_BYTES, previewPlan } from '../../domain/library/model-formats.js';
import {
  distinctTagIds,
  libraryModelBlobPrefix,
  libraryModelOriginalKey,
  MODEL_DOWNLOAD_LINK_SECONDS,
  previewFileName,
} from '../../domain/library/models.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeService } from '../node-service.js';
import { expectedEtag, type UploadService, type UploadTarget, uploadTarget } from '../uploads/upload-service.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { type LibraryModelView, libraryModelView, type ModelDownloadLinks } from './library-model-view.js';
import type { ModelPreviewLifecycle } from './model-preview-lifecycle.js';

type Tx = Transaction<RegionalSchema>;

export interface NewLibraryModel {
  name: string;
  description?: string;
  fileName: string;
  size: number;
  tagIds?: string[];
}

export interface LibraryModelChanges {
  name?: string;
  description?: string;
  tagIds?: string[];
}

/** What a read adds to the model: its tags, its signed download links (the route checked the scope). */
export interface ModelReadOptions {
  includeTags?: boolean;
  includeDownloadLinks?: boolean;
}

function notFound(): ApiError {
  return new ApiError('NotFound', 'Model not found');
}

export interface LibraryModelServiceOptions {
  clock: Clock;
  /** This region's public base address: absolute URLs in views start with it. */
  apiUrl: string;
  /** The thumbnail's blob and the signed download links. */
  blobs: Pick<BlobStore, 'head' | 'downloadUrl'>;
  nodes: Pick<NodeService, 'authorize'>;
  uploads: Pick<UploadService, 'begin' | 'reserve' | 'lockQuota' | 'checkQuota' | 'completeBytes' | 'readHead'>;
  models: LibraryModelRepository;
  /** Where each change runs: one regional transaction. */
  tree: Pick<NodeTreeRepository, 'transaction'>;
  /** A deleted model's bytes go through the blob deletion queue. */
  deletions: Pick<UploadRepository, 'queueDeletions'>;
  audit: Pick<AuditRepository, 'record'>;
  outbox: Pick<WebhookOutbox, 'record'>;
  /** Queues a finalized model's preview job. */
  previews: Pick<ModelPreviewLifecycle, 'start'>;
}

/**
 * The models of an organization's asset library (docs/asset-library.md). A model is created with
 * its upload open (the bytes reserved against the storage quota, as for site files, through the
 * shared UploadService), finalized with the ETag (the format read from the bytes decides the
 * preview), then read, changed and deleted. Who may: as for tags (any member reads; edit on the
 * organization node changes). Each change is one regional transaction with its audit event.
 */
export class LibraryModelService {
  private readonly uploads: LibraryModelServiceOptions['uploads'];
  private readonly models: LibraryModelRepository;
  private readonly tree: LibraryModelServiceOptions['tree'];

  constructor(private readonly options: LibraryModelServiceOptions) {
    this.uploads = options.uploads;
    this.models = options.models;
    this.tree = options.tree;
  }

  private now(): string {
    return this.options.clock.now().toISOString();
  }

  private apiUrl(): string {
    return this.options.apiUrl;
  }

  private requireEditor(principal: Principal) {
    return this.options.nodes.authorize(principal, principal.orgId, 'edit');
  }

  async create(principal: Principal, input: NewLibraryModel): Promise<LibraryModelView & UploadTarget> {
    await this.requireEditor(principal);
    const tagIds = distinctTagIds(input.tagIds ?? []);
    const { orgId } = principal;
    const id = randomUUID();
    const blobKey = libraryModelOriginalKey(orgId, id);
    const opened = await this.uploads.begin(blobKey, input.size);
    const now = opened.now.toISOString();
    const row: LibraryModelRow = {
      id,
      org_id: orgId,
      name: input.name,
      name_key: input.name.toLowerCase(),
      description: input.description ?? '',
      status: 'pendingUpload',
      file_name: input.fileName,
      declared_bytes: input.size,
      reserved_bytes: input.size,
      stored_bytes: null,
      blob_key: blobKey,
      multipart_upload_id: opened.plan.kind === 'multipart' ? opened.plan.uploadId : null,
      upload_expires_at: opened.plan.expiresAt.toISOString(),
      etag: null,
      format: null,
      previewable: 0,
      preview_unavailable_reason: null,
      preview_blob_key: null,
      preview_bytes: null,
      thumbnail_blob_key: null,
      thumbnail_bytes: null,
      failure_reason: null,
      created_by: principal.userId,
      updated_by: principal.userId,
      created_at: now,
      updated_at: now,
      finalized_at: null,
    };
    const tags = await this.uploads.reserve(opened, () =>
      this.tree.transaction(async (tx) => {
        await this.uploads.lockQuota(tx, orgId);
        await this.checkTags(tx, orgId, tagIds);
        await this.uploads.checkQuota(tx, orgId, input.size, now, 'StorageLimitExceededAtUpload');
        await this.models.insert(tx, row);
        await this.models.setTags(tx, id, tagIds, now);
        await this.audit(
          tx,
          principal,
          'library-model.created',
          id,
          { name: row.name, fileName: row.file_name, size: row.declared_bytes, tagIds },
          now,
        );
        return (await this.models.tagsOf([id], tx)).get(id) ?? [];
      }),
    );
    return { ...libraryModelView(row, this.apiUrl(), { tags }), ...uploadTarget(opened.plan) };
  }

  async get(principal: Principal, id: string, options: ModelReadOptions = {}): Promise<LibraryModelView> {
    const row = await this.models.findLive(principal.orgId, id, this.now());
    if (!row) throw notFound();
    return (await this.views([row], options))[0] as LibraryModelView;
  }

  async list(
    principal: Principal,
    page: { limit: number; offset: number; tagIds: string[] } & ModelReadOptions,
  ): Promise<LibraryModelView[]> {
    const rows = await this.models.list(principal.orgId, { ...page, tagIds: [...new Set(page.tagIds)], now: this.now() });
    return this.views(rows, page);
  }

  async update(principal: Principal, id: string, changes: LibraryModelChanges): Promise<LibraryModelView> {
    await this.requireEditor(principal);
    const tagIds = changes.tagIds === undefined ? undefined : distinctTagIds(changes.tagIds);
    const now = this.now();
    const { row, tags } = await this.tree.transaction(async (tx) => {
      const before = await this.models.lock(tx, principal.orgId, id, now);
      if (!before) throw notFound();
      const tagsBefore = ((await this.models.tagsOf([id], tx)).get(id) ?? []).map((tag) => tag.id);
      if (tagIds !== undefined) {
        await this.checkTags(tx, principal.orgId, tagIds);
        await this.models.setTags(tx, id, tagIds, now);
      }
      const name = changes.name ?? before.name;
      const fields = {
        name,
        name_key: name.toLowerCase(),
        description: changes.description ?? before.description,
        updated_by: principal.userId,
        updated_at: now,
      };
      await this.models.update(tx, id, fields);
      await this.audit(
        tx,
        principal,
        'library-model.updated',
        id,
        {
          before: { name: before.name, description: before.description, tagIds: tagsBefore },
          after: { name: fields.name, description: fields.description, tagIds: tagIds ?? tagsBefore },
          changed: Object.keys(changes),
        },
        now,
      );
      return { row: { ...before, ...fields }, tags: (await this.models.tagsOf([id], tx)).get(id) ?? [] };
    });
    return libraryModelView(row, this.apiUrl(), { tags });
  }

  /**
   * Deletes the model, its tag rows and, through the housekeeping's deletion queue, its bytes
   * (original or open upload, preview, thumbnail, anything else under its prefix): the quota is
   * free at once, as the model's bytes stop counting with its row.
   */
  async delete(principal: Principal, id: string): Promise<void> {
    await this.requireEditor(principal);
    const now = this.now();
    await this.tree.transaction(async (tx) => {
      const row = await this.models.lock(tx, principal.orgId, id, now);
      if (!row) throw notFound();
      // Placements hold the model's row FOR SHARE (PostgreSQL; SQLite has one writer): with it held
      // here, none can land between the count and the delete.
      const placements = await this.models.countPlacements(principal.orgId, id, tx);
      if (placements > 0) {
        throw new ApiError(
          'LibraryModelInUse',
          `The library model is placed ${placements} time${placements === 1 ? '' : 's'} in twins, open drafts or planning layouts: delete those model assets first`,
        );
      }
      await this.models.delete(tx, id);
      const prefix = libraryModelBlobPrefix(row.org_id, row.id);
      await this.options.deletions.queueDeletions(tx, [...blobsOfModel(row), { key: prefix }], now);
      await this.audit(
        tx,
        principal,
        'library-model.deleted',
        id,
        { name: row.name, fileName: row.file_name, status: row.status, size: Number(row.stored_bytes ?? row.declared_bytes) },
        now,
      );
    });
  }

  /**
   * Checks the upload (complete, declared size, the client's ETag), reads the format from the
   * first bytes, and records what the preview plan decides: `processing` with the preview job
   * queued, or `ready` without a preview. Bytes of no library format: 400 FileNotCompatible, and
   * the model stays pendingUpload (a corrected single PUT may be finalized before the expiry).
   * Again after success: the model as it is (a `processing` one has its job queued again, once).
   */
  async finalize(principal: Principal, id: string, etag: string | undefined): Promise<LibraryModelView> {
    await this.requireEditor(principal);
    const row = await this.models.findLive(principal.orgId, id, this.now());
    if (!row) throw notFound();
    if (row.status !== 'pendingUpload') return this.finalized(row);
    const expected = expectedEtag(etag, { etagRequired: true });
    const upload = { blobKey: row.blob_key, uploadId: row.multipart_upload_id, declaredBytes: Number(row.declared_bytes) };
    const info = await this.uploads.completeBytes(upload, expected);
    const detected = detectModelFormat(await this.uploads.readHead(row.blob_key, info.size, MODEL_DETECT_BYTES), info.size);
    if (!detected) {
      throw new ApiError(
        'FileNotCompatible',
        `The content of ${row.file_name} is none of the library's formats (glTF, GLB, OBJ, STL, PLY, FBX, IFC, STEP, E57, LAS, LAZ)`,
      );
    }
    const plan = previewPlan(detected.format, info.size);
    const now = this.now();
    const fields = {
      status: plan.previewable ? 'processing' : 'ready',
      stored_bytes: info.size,
      reserved_bytes: 0,
      etag: info.etag,
      format: detected.format,
      previewable: plan.previewable ? 1 : 0,
      preview_unavailable_reason: plan.previewable ? 'Processing' : plan.reason,
      multipart_upload_id: null,
      upload_expires_at: null,
      updated_by: principal.userId,
      updated_at: now,
      finalized_at: now,
    } satisfies Partial<LibraryModelRow>;
    const outcome = await this.tree.transaction(async (tx) => {
      const current = await this.models.lock(tx, principal.orgId, id, now);
      if (!current) throw notFound();
      // A concurrent finalize won: answer what it recorded.
      if (current.status !== 'pendingUpload') return current;
      await this.models.update(tx, id, fields);
      if (fields.status === 'ready') {
        await this.options.outbox.record(tx, principal.orgId, 'libraryModel.ready', { libraryModelId: id, preview: false });
      }
      await this.audit(
        tx,
        principal,
        'library-model.finalized',
        id,
        {
          format: fields.format,
          size: fields.stored_bytes,
          etag: fields.etag,
          status: fields.status,
          previewUnavailableReason: fields.preview_unavailable_reason,
        },
        now,
      );
      return { ...current, ...fields };
    });
    return this.finalized(outcome);
  }

  /**
   * The answer of a finalized model. The job queue is another store than the model's, so the job
   * is queued right after the commit, keyed by the model: a failure to queue is 409
   * FailedToLaunchProcessing, and finalizing again queues it (never twice).
   */
  private async finalized(row: LibraryModelRow): Promise<LibraryModelView> {
    if (row.status === 'processing') await this.options.previews.start(row.id);
    return libraryModelView(row, this.apiUrl());
  }

  /** The thumbnail's blob, once the worker made one. */
  async thumbnail(principal: Principal, id: string): Promise<{ key: string; size: number; etag: string }> {
    const row = await this.models.findLive(principal.orgId, id, this.now());
    if (!row?.thumbnail_blob_key) throw new ApiError('NotFound', 'The model has no thumbnail');
    const info = await this.options.blobs.head(row.thumbnail_blob_key);
    if (!info) throw new ApiError('NotFound', 'The model has no thumbnail');
    return { key: row.thumbnail_blob_key, size: info.size, etag: info.etag };
  }

  private async views(rows: ModelViewRow[], options: ModelReadOptions): Promise<LibraryModelView[]> {
    const tags = options.includeTags ? await this.models.tagsOf(rows.map((row) => row.id)) : undefined;
    return Promise.all(
      rows.map(async (row) =>
        libraryModelView(row, this.apiUrl(), {
          tags: tags?.get(row.id) ?? (tags ? [] : undefined),
          downloadLinks: options.includeDownloadLinks ? await this.downloadLinks(row) : undefined,
        }),
      ),
    );
  }

  /** Signed links of the original and the preview; null while the upload is open (nothing to download). */
  private async downloadLinks(row: ModelViewRow): Promise<ModelDownloadLinks | null> {
    if (row.status === 'pendingUpload') return null;
    const expiresAt = new Date(this.options.clock.now().getTime() + MODEL_DOWNLOAD_LINK_SECONDS * 1000);
    const link = async (key: string, fileName: string, contentType?: string) => ({
      url: await this.options.blobs.downloadUrl(key, expiresAt, { fileName, ...(contentType ? { contentType } : {}) }),
      expiresAt: expiresAt.toISOString(),
    });
    return {
      original: await link(row.blob_key, row.file_name),
      preview: row.preview_blob_key
        ? await link(row.preview_blob_key, previewFileName(row.file_name), 'model/gltf-binary')
        : null,
    };
  }

  /** Every id must be a tag of the organization: another organization's is as unknown (400). */
  private async checkTags(tx: Tx, orgId: string, tagIds: string[]): Promise<void> {
    const existing = await this.models.existingTagIds(tx, orgId, tagIds);
    const unknown = tagIds.filter((tagId) => !existing.has(tagId));
    if (unknown.length > 0) throw validationError(`body.tagIds: no tag ${unknown.join(', ')} in this organization`);
  }

  private audit(tx: Tx, principal: Principal, action: string, id: string, details: Record<string, unknown>, at: string) {
    return this.options.audit.record(tx, {
      orgId: principal.orgId,
      actor: { type: 'principal', id: principal.userId },
      action,
      target: { type: 'library-model', id },
      details,
      at,
    });
  }
}
