import { randomUUID } from 'node:crypto';
import type { NodeRepository } from '../../adapters/db/repositories/node-repository.js';
import { newNodeRow } from '../../adapters/db/repositories/node-rows.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import { finalizedFields, type UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { StoredObjectRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { nodeBlobPrefix } from '../../domain/uploads/blob-key.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeService } from '../node-service.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { type UploadService, type UploadTarget, uploadTarget } from './upload-service.js';

/** A site file as the API shows it. */
export interface SiteFileView {
  id: string;
  name: string;
  parentId: string;
  size: number;
  state: 'uploading' | 'ready';
  etag: string | null;
  format: string | null;
  createdAt: string;
  updatedAt: string;
}

export function siteFileBlobKey(orgId: string, fileId: string): string {
  return `${nodeBlobPrefix(orgId, fileId)}file`;
}

function view(row: StoredObjectRow, updatedAt: string): SiteFileView {
  return {
    id: row.id,
    name: row.name,
    parentId: row.parent_id as string,
    size: row.stored_bytes ?? row.declared_bytes,
    state: row.state === 'finalized' ? 'ready' : 'uploading',
    etag: row.etag,
    format: row.format,
    createdAt: row.created_at,
    updatedAt,
  };
}

export interface SiteFileServiceOptions {
  clock: Clock;
  nodes: Pick<NodeService, 'authorize' | 'checkChild'>;
  uploads: Pick<UploadService, 'open' | 'reserve' | 'lockQuota' | 'checkQuota' | 'complete'>;
  storedObjects: Pick<UploadRepository, 'siteFileNameTaken' | 'insertObject' | 'findObject' | 'finalizeObject'>;
  tree: Pick<NodeTreeRepository, 'transaction' | 'lockForChild'>;
  /** Where the finalized file's node is inserted. */
  nodeRows: Pick<NodeRepository, 'insert'>;
  outbox: Pick<WebhookOutbox, 'record'>;
}

/**
 * Site files: initiate (reserve the bytes, hand out the signed addresses), the client uploads,
 * finalize (check the bytes, then the file becomes a node of its parent). Until finalized a
 * site file is no node: browse and search never show it. Its identity is its parent and name.
 */
export class SiteFileService {
  private readonly nodes: SiteFileServiceOptions['nodes'];
  private readonly uploads: SiteFileServiceOptions['uploads'];
  private readonly storedObjects: SiteFileServiceOptions['storedObjects'];
  private readonly tree: SiteFileServiceOptions['tree'];

  constructor(private readonly options: SiteFileServiceOptions) {
    this.nodes = options.nodes;
    this.uploads = options.uploads;
    this.storedObjects = options.storedObjects;
    this.tree = options.tree;
  }

  async initiate(principal: Principal, input: { parentId: string; name: string; size: number }) {
    const seen = await this.nodes.authorize(principal, input.parentId, 'upload');
    // Refused before the blob store opens anything; finalize checks again on the parent as it is then.
    this.nodes.checkChild(seen, 'siteFile');
    const id = randomUUID();
    const opened = await this.uploads.open({
      id,
      orgId: seen.org_id,
      purpose: 'site-file',
      nodeId: id,
      parentId: seen.id,
      name: input.name,
      bytes: input.size,
      blobKey: siteFileBlobKey(seen.org_id, id),
      createdBy: principal.userId,
    });
    const { tree } = this;
    await this.uploads.reserve(opened, () =>
      tree.transaction(async (tx) => {
        const now = opened.row.created_at;
        await this.uploads.lockQuota(tx, seen.org_id);
        const parent = await tree.lockForChild(tx, seen);
        if (!parent || parent.trashed_at) throw new ApiError('NotFound', 'Node not found');
        if (await this.storedObjects.siteFileNameTaken(tx, parent.id, opened.row.name_key, now)) {
          throw new ApiError('FileAlreadyExists', 'A site file of this name exists in this folder, or is being uploaded');
        }
        await this.uploads.checkQuota(tx, seen.org_id, input.size, now, 'StorageLimitExceededAtUpload');
        await this.storedObjects.insertObject(tx, opened.row);
      }),
    );
    return { ...view(opened.row, opened.row.created_at), ...uploadTarget(opened.plan) } satisfies SiteFileView & UploadTarget;
  }

  async finalize(principal: Principal, fileId: string, etag: string | undefined): Promise<SiteFileView> {
    const row = await this.storedObjects.findObject(fileId);
    if (row?.purpose !== 'site-file' || row.org_id !== principal.orgId) throw new ApiError('NotFound', 'Site file not found');
    if (row.state === 'finalized') return this.get(principal, fileId);
    const seen = await this.nodes.authorize(principal, row.parent_id as string, 'upload');
    const completed = await this.uploads.complete(row, etag, { etagRequired: true });
    const { tree } = this;
    const now = this.options.clock.now().toISOString();
    const stored = { ...completed, at: now };
    await tree.transaction(async (tx) => {
      const parent = await tree.lockForChild(tx, seen);
      if (!parent || parent.trashed_at) throw new ApiError('NotFound', 'The parent of the site file is gone or in the trash');
      // The parent may have moved since the initiation.
      this.nodes.checkChild(parent, 'siteFile');
      if (!(await this.storedObjects.finalizeObject(tx, row.id, stored))) {
        throw new ApiError('NotFound', 'No pending upload with this id: it was finalized or has expired');
      }
      const node = newNodeRow(parent, { id: row.id, kind: 'siteFile', name: row.name, now });
      await this.options.nodeRows.insert({ ...node, size_bytes: completed.bytes }, tx);
      const event = { siteFileId: row.id, parentId: parent.id, bytes: completed.bytes };
      await this.options.outbox.record(tx, row.org_id, 'siteFile.finalized', event);
    });
    // The new node has the row's name and parent, and was updated now.
    return view({ ...row, ...finalizedFields(stored) }, now);
  }

  async get(principal: Principal, fileId: string): Promise<SiteFileView> {
    const node = await this.nodes.authorize(principal, fileId, 'read');
    const row = await this.storedObjects.findObject(fileId);
    if (node.kind !== 'siteFile' || !row || row.state !== 'finalized') throw new ApiError('NotFound', 'Site file not found');
    return { ...view(row, node.updated_at), name: node.name, parentId: node.parent_id as string };
  }

  /** The stored object of a site file the caller may download. */
  async downloadable(principal: Principal, fileId: string): Promise<{ name: string; row: StoredObjectRow }> {
    const node = await this.nodes.authorize(principal, fileId, 'download');
    const row = await this.storedObjects.findObject(fileId);
    if (node.kind !== 'siteFile' || !row || row.state !== 'finalized') throw new ApiError('NotFound', 'Site file not found');
    return { name: node.name, row };
  }
}
