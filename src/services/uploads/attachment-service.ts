import { randomUUID } from 'node:crypto';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import { finalizedFields, type UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { StoredObjectRow } from '../../adapters/db/schema.js';
import type { Permission } from '../../domain/access/permissions.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { nodeBlobPrefix } from '../../domain/uploads/blob-key.js';
import type { Clock } from '../../ports/clock.js';
import type { TwinService } from '../twins/twin-service.js';
import { type UploadService, uploadTarget } from './upload-service.js';

export interface AttachmentView {
  id: string;
  contextId: string;
  objectId: string;
  name: string;
  size: number;
  state: 'uploading' | 'ready';
  etag: string | null;
  format: string | null;
  createdAt: string;
}

function view(row: StoredObjectRow): AttachmentView {
  return {
    id: row.id,
    contextId: row.parent_id as string,
    objectId: row.object_id as string,
    name: row.name,
    size: row.stored_bytes ?? row.declared_bytes,
    state: row.state === 'finalized' ? 'ready' : 'uploading',
    etag: row.etag,
    format: row.format,
    createdAt: row.created_at,
  };
}

export interface AttachmentServiceOptions {
  clock: Clock;
  uploads: Pick<UploadService, 'open' | 'reserve' | 'lockQuota' | 'checkQuota' | 'complete'>;
  storedObjects: Pick<
    UploadRepository,
    'attachmentNameTaken' | 'insertObject' | 'finalizeObject' | 'attachmentsOf' | 'findObject'
  >;
  tree: Pick<NodeTreeRepository, 'transaction' | 'addBytes'>;
  /** The site (and draft) a context names, with the caller's access. */
  twins: Pick<TwinService, 'context'>;
}

/**
 * Files attached to a twin's objects, through the same upload machinery as site files. The
 * context is a site or a draft of it: either way the attachment is the site's (a draft's objects
 * become the live twin's when it is published), listed and downloadable through the site and each
 * of its drafts. The bytes count on the site's node, so they go to the trash, come back and leave
 * with it. Identity: site, object and name.
 */
export class AttachmentService {
  private readonly uploads: AttachmentServiceOptions['uploads'];
  private readonly storedObjects: AttachmentServiceOptions['storedObjects'];
  private readonly tree: AttachmentServiceOptions['tree'];

  constructor(private readonly options: AttachmentServiceOptions) {
    this.uploads = options.uploads;
    this.storedObjects = options.storedObjects;
    this.tree = options.tree;
  }

  /** The site a context names (a site, or a draft of it); an upload through a draft needs it open (409 DraftNotOpen). */
  private async context(principal: Principal, contextId: string, permission: Permission, writing = false) {
    const { site, draft } = await this.options.twins.context(principal, contextId, permission);
    if (writing && draft && draft.status !== 'open') throw new ApiError('DraftNotOpen');
    return site;
  }

  async initiate(principal: Principal, contextId: string, input: { objectId: string; name: string; size: number }) {
    const site = await this.context(principal, contextId, 'upload', true);
    const id = randomUUID();
    const opened = await this.uploads.open({
      id,
      orgId: site.org_id,
      purpose: 'attachment',
      nodeId: site.id,
      parentId: site.id,
      objectId: input.objectId,
      name: input.name,
      bytes: input.size,
      blobKey: `${nodeBlobPrefix(site.org_id, site.id)}attachments/${id}`,
      createdBy: principal.userId,
    });
    await this.uploads.reserve(opened, () =>
      this.tree.transaction(async (tx) => {
        const now = opened.row.created_at;
        await this.uploads.lockQuota(tx, site.org_id);
        if (await this.storedObjects.attachmentNameTaken(tx, site.id, input.objectId, opened.row.name_key, now)) {
          throw new ApiError('FileAlreadyExists', 'The object has an attachment of this name, or one is being uploaded');
        }
        await this.uploads.checkQuota(tx, site.org_id, input.size, now, 'StorageLimitExceeded');
        await this.storedObjects.insertObject(tx, opened.row);
      }),
    );
    return { ...view(opened.row), ...uploadTarget(opened.plan) };
  }

  async finalize(principal: Principal, contextId: string, attachmentId: string, etag: string | undefined) {
    const site = await this.context(principal, contextId, 'upload', true);
    const row = await this.find(site.id, attachmentId);
    if (row.state === 'finalized') return view(row);
    const completed = await this.uploads.complete(row, etag, { etagRequired: true });
    const stored = { ...completed, at: this.options.clock.now().toISOString() };
    await this.tree.transaction(async (tx) => {
      if (!(await this.storedObjects.finalizeObject(tx, row.id, stored))) {
        throw new ApiError('NotFound', 'No pending upload with this id: it was finalized or has expired');
      }
      // The reservation becomes bytes of the site.
      await this.tree.addBytes(tx, site.id, completed.bytes);
    });
    return view({ ...row, ...finalizedFields(stored) });
  }

  async list(principal: Principal, contextId: string, objectId: string): Promise<AttachmentView[]> {
    const site = await this.context(principal, contextId, 'read');
    return (await this.storedObjects.attachmentsOf(site.id, objectId)).map(view);
  }

  async downloadable(principal: Principal, contextId: string, attachmentId: string) {
    const site = await this.context(principal, contextId, 'download');
    const row = await this.find(site.id, attachmentId);
    if (row.state !== 'finalized') throw new ApiError('NotFound', 'Attachment not found');
    return { name: row.name, row };
  }

  private async find(siteId: string, attachmentId: string): Promise<StoredObjectRow> {
    const row = await this.storedObjects.findObject(attachmentId);
    if (row?.purpose !== 'attachment' || row.parent_id !== siteId) throw new ApiError('NotFound', 'Attachment not found');
    return row;
  }
}
