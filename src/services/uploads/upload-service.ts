import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { ComparisonRepository } from '../../adapters/db/repositories/comparison-repository.js';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { LibraryModelRepository } from '../../adapters/db/repositories/library-model-repository.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { RegionalSchema, StoredObjectPurpose, StoredObjectRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { fitsQuota } from '../../domain/nodes/delete.js';
import { parseEtag } from '../../domain/uploads/etag.js';
import {
  detectFormat,
  expectedFormat,
  type FileFormat,
  FORMAT_PROBE_BYTES,
  isCompatible,
} from '../../domain/uploads/file-formats.js';
import type { BlobInfo, BlobStore, UploadPlan } from '../../ports/blob-store.js';
import type { Clock } from '../../ports/clock.js';

type Tx = Transaction<RegionalSchema>;

/** Where the client sends the bytes, as the API shows it (never an uploadId field). */
export interface UploadTarget {
  uploadUrl?: string;
  partSize?: number;
  parts?: { partNumber: number; size: number; uploadUrl: string }[];
  expiresAt: string;
}

export function uploadTarget(plan: UploadPlan): UploadTarget {
  const expiresAt = plan.expiresAt.toISOString();
  if (plan.kind === 'single') return { uploadUrl: plan.url, expiresAt };
  return {
    partSize: plan.partSize,
    parts: plan.parts.map((part) => ({ partNumber: part.partNumber, size: part.size, uploadUrl: part.url })),
    expiresAt,
  };
}

/** An upload open in the blob store, whatever row records it. */
export interface PendingBytes {
  blobKey: string;
  uploadId: string | null;
  declaredBytes: number;
}

/**
 * The ETag the client sends at finalize, parsed before anything is touched: missing (when
 * required), empty, short or malformed is 400 ValidationError (spec rule 6), never a 500.
 */
export function expectedEtag(clientEtag: string | undefined, options: { etagRequired: boolean }): string | undefined {
  if (clientEtag === undefined && options.etagRequired) throw validationError('etag is required: the ETag the upload returned');
  const expected = parseEtag(clientEtag);
  if (clientEtag !== undefined && expected === undefined) {
    throw validationError('etag must be an S3-style ETag: 32 hexadecimal digits, with "-N" for N parts');
  }
  return expected;
}

/** What the store holds after a complete upload, checked against what the client said. */
export interface CompletedUpload {
  bytes: number;
  etag: string;
  format: FileFormat | null;
}

export type QuotaRefusal = 'StorageLimitExceededAtUpload' | 'StorageLimitExceeded';

export interface NewUpload {
  orgId: string;
  purpose: StoredObjectPurpose;
  nodeId: string;
  parentId?: string;
  sessionId?: string;
  objectId?: string;
  name: string;
  bytes: number;
  blobKey: string;
  createdBy: string;
  id?: string;
}

export interface UploadServiceOptions {
  clock: Clock;
  blobs: Pick<BlobStore, 'beginUpload' | 'abortUpload' | 'completeUpload' | 'read'>;
  /** How long an upload stays open (RDP_UPLOAD_EXPIRY_SECONDS). */
  uploadExpirySeconds: number;
  /** The organizations' storage quotas. */
  organizations: Pick<DirectoryRepository, 'findOrganization'>;
  tree: Pick<NodeTreeRepository, 'activeBytes' | 'lock' | 'readTransaction'>;
  uploads: Pick<UploadRepository, 'reservedBytes'>;
  libraryModels: Pick<LibraryModelRepository, 'bytesInUse'>;
  /** The comparisons' outputs, which count as a derivative's do (docs/comparisons.md, "Limits"). */
  comparisons: Pick<ComparisonRepository, 'bytesInUse'>;
}

/**
 * The upload machinery every kind of file shares (docs/design/uploads.md): reserve the declared
 * bytes against the quota at initiation, hand out signed addresses, and at finalize check the
 * stored object (complete, same size, the client's ETag) and its real format.
 */
export class UploadService {
  private readonly clock: Clock;
  private readonly blobs: UploadServiceOptions['blobs'];
  private readonly tree: UploadServiceOptions['tree'];
  private readonly uploads: UploadServiceOptions['uploads'];

  constructor(private readonly options: UploadServiceOptions) {
    this.clock = options.clock;
    this.blobs = options.blobs;
    this.tree = options.tree;
    this.uploads = options.uploads;
  }

  /**
   * Bytes in use by the organization: its active nodes' bytes, the pending reservations, and its
   * asset library's (open uploads' reservations, stored originals, previews and thumbnails), and
   * its comparisons' outputs. Callers hold the organization node's lock (see reserve), so concurrent checks queue.
   */
  async usedBytes(tx: Tx, orgId: string, now: string): Promise<number> {
    return (
      (await this.tree.activeBytes(tx, orgId)) +
      (await this.uploads.reservedBytes(tx, orgId, now)) +
      (await this.options.libraryModels.bytesInUse(tx, orgId, now)) +
      (await this.options.comparisons.bytesInUse(tx, orgId))
    );
  }

  /**
   * What the caller's organization stores against its quota, as the quota checks count it (one
   * read snapshot): used bytes (reservations included), the reservations alone, and the quota
   * (null: none). Any member may read it: a refused upload tells as much.
   */
  async storageUse(principal: Principal) {
    const org = await this.options.organizations.findOrganization(principal.orgId);
    const now = this.clock.now().toISOString();
    return this.tree.readTransaction(async (tx) => ({
      usedBytes: await this.usedBytes(tx, principal.orgId, now),
      reservedBytes: await this.uploads.reservedBytes(tx, principal.orgId, now),
      quotaBytes: org?.storage_quota ?? null,
    }));
  }

  /** Takes the organization's quota lock: the organization node's row, held to the end of the transaction. */
  async lockQuota(tx: Tx, orgId: string): Promise<void> {
    await this.tree.lock(tx, orgId);
  }

  /** Refuses when `bytes` more would not fit in the organization's quota. The quota lock must be held. */
  async checkQuota(tx: Tx, orgId: string, bytes: number, now: string, refusal: QuotaRefusal): Promise<void> {
    const org = await this.options.organizations.findOrganization(orgId);
    const quota = org?.storage_quota ?? null;
    if (quota === null) return;
    const used = await this.usedBytes(tx, orgId, now);
    if (bytes === 0 ? used >= quota : !fitsQuota(quota, used, bytes)) {
      throw new ApiError(refusal, `${bytes} bytes more would exceed the storage quota (${used} of ${quota} bytes in use)`);
    }
  }

  /**
   * Opens the upload in the blob store (a multipart upload has an id there), then, in the
   * caller's transaction, reserves its bytes. When the transaction fails, `discard` aborts what
   * the blob store opened, so a refused request leaves nothing.
   */
  async open(upload: NewUpload): Promise<{ row: StoredObjectRow; plan: UploadPlan; discard: () => Promise<void> }> {
    const { now, plan, discard } = await this.begin(upload.blobKey, upload.bytes);
    const expiresAt = plan.expiresAt;
    const row: StoredObjectRow = {
      id: upload.id ?? randomUUID(),
      org_id: upload.orgId,
      purpose: upload.purpose,
      node_id: upload.nodeId,
      parent_id: upload.parentId ?? null,
      session_id: upload.sessionId ?? null,
      object_id: upload.objectId ?? null,
      name: upload.name,
      name_key: upload.name.toLowerCase(),
      declared_bytes: upload.bytes,
      reserved_bytes: upload.bytes,
      stored_bytes: null,
      blob_key: upload.blobKey,
      multipart_upload_id: plan.kind === 'multipart' ? plan.uploadId : null,
      etag: null,
      format: null,
      state: 'pending',
      created_by: upload.createdBy,
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
      finalized_at: null,
    };
    return { row, plan, discard };
  }

  /**
   * Opens an upload of `bytes` under `key` in the blob store, until the configured expiry:
   * the plan to answer, and `discard` to abort it when the caller's transaction fails.
   */
  async begin(key: string, bytes: number): Promise<{ now: Date; plan: UploadPlan; discard: () => Promise<void> }> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.options.uploadExpirySeconds * 1000);
    const plan = await this.blobs.beginUpload(key, bytes, expiresAt);
    const uploadId = plan.kind === 'multipart' ? plan.uploadId : undefined;
    return { now, plan, discard: () => this.blobs.abortUpload(key, uploadId) };
  }

  /** Runs the reservation transaction; on any failure the blob store's side is discarded. */
  async reserve<T>(opened: { discard: () => Promise<void> }, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await opened.discard().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Completes the bytes of a pending upload and checks them: every part there, the declared
   * size, the ETag the client got (when given; `etagRequired`: it must be), and the real
   * format against the one the name promises (FileNotCompatible).
   */
  async complete(
    row: StoredObjectRow,
    clientEtag: string | undefined,
    options: { etagRequired: boolean },
  ): Promise<CompletedUpload> {
    const expected = expectedEtag(clientEtag, options);
    if (row.state !== 'pending' || row.expires_at <= this.clock.now().toISOString()) {
      throw new ApiError('NotFound', 'No pending upload with this id: it was finalized or has expired');
    }
    const info = await this.completeBytes(
      { blobKey: row.blob_key, uploadId: row.multipart_upload_id, declaredBytes: row.declared_bytes },
      expected,
    );
    const format = info.size === 0 ? null : detectFormat(await this.readHead(row.blob_key, info.size, FORMAT_PROBE_BYTES));
    const promised = expectedFormat(row.name);
    if (!isCompatible(promised, format)) {
      throw new ApiError(
        'FileNotCompatible',
        `${row.name} should be ${promised} but its content is ${format ?? 'of no known format'}`,
      );
    }
    return { bytes: info.size, etag: info.etag, format };
  }

  /**
   * Completes an upload in the blob store and checks what it holds: every byte (every part), the
   * declared size, and the client's ETag (already parsed by expectedEtag) when given. Shared by
   * every kind of upload, whatever row records it (stored_objects, library_models).
   */
  async completeBytes(upload: PendingBytes, expected: string | undefined): Promise<BlobInfo> {
    const info = await this.blobs.completeUpload(upload.blobKey, {
      uploadId: upload.uploadId ?? undefined,
      size: upload.declaredBytes,
    });
    if (!info) throw validationError('The upload is not complete: send every byte (every part) before finalizing');
    if (info.size !== upload.declaredBytes) {
      throw validationError(`The upload holds ${info.size} bytes; ${upload.declaredBytes} were declared`);
    }
    if (expected !== undefined && expected !== info.etag) {
      throw validationError('etag does not match the stored object: upload again or send the ETag the upload returned');
    }
    return info;
  }

  /** The first `max` bytes of a stored object of `size` bytes (all of a smaller one). */
  async readHead(key: string, size: number, max: number): Promise<Buffer> {
    if (size === 0) return Buffer.alloc(0);
    const stream = await this.blobs.read(key, { start: 0, end: Math.min(size, max) - 1 });
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** A stored object's bytes chunk by chunk, never held whole (leaving the loop early closes the read). */
  async readChunks(key: string): Promise<AsyncIterable<Buffer>> {
    return (await this.blobs.read(key)) as AsyncIterable<Buffer>;
  }
}
