import type { Transaction } from 'kysely';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { NodeListRepository } from '../adapters/db/repositories/node-list-repository.js';
import { type NodeTreeRepository, parentPath, toMoveNode } from '../adapters/db/repositories/node-tree-repository.js';
import type { RegionalSchema } from '../adapters/db/schema.js';
import type { Principal } from '../domain/access/principal.js';
import { ApiError } from '../domain/errors.js';
import type { ListPage } from '../domain/listing/cursor.js';
import { checkDeletableKind, checkSoftDelete, fitsQuota, trashCutoff } from '../domain/nodes/delete.js';
import { isMovableKind, type NodeKind } from '../domain/nodes/hierarchy.js';
import { checkMove } from '../domain/nodes/move.js';
import type { NodeListing, NodeRow } from '../domain/records/regional.js';
import type { Clock } from '../ports/clock.js';
import { type NodeService, requireAccess } from './node-service.js';
import type { WebhookOutbox } from './webhooks/webhook-outbox.js';

/** Write conflicts between concurrent tree changes: the change is refused, nothing is kept. */
function isWriteConflict(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === '40001' || code === '40P01' || code === 'SQLITE_BUSY';
}

export interface NodeTreeServiceOptions {
  clock: Clock;
  /** The access checks on the node and on a move's target. */
  nodes: Pick<NodeService, 'authorize' | 'findWithAccess'>;
  tree: NodeTreeRepository;
  /** The trash, by cursor. */
  lists: NodeListRepository;
  outbox: Pick<WebhookOutbox, 'record'>;
  /** The organization's storage quota, which a restore must fit. */
  organizations: Pick<DirectoryRepository, 'findOrganization'>;
  /** Whether another region this process opened has the node: a move there is refused as such. */
  inOtherRegion(nodeId: string): Promise<boolean>;
  maxHierarchyDepth: number;
  trashRetentionDays: number;
}

/** Tree-wide changes of one region: move, trash, restore, hard delete and the purge. */
export class NodeTreeService {
  private readonly clock: Clock;
  private readonly nodes: Pick<NodeService, 'authorize' | 'findWithAccess'>;
  private readonly tree: NodeTreeRepository;
  private readonly lists: NodeListRepository;
  private readonly outbox: Pick<WebhookOutbox, 'record'>;
  private readonly organizations: Pick<DirectoryRepository, 'findOrganization'>;
  private readonly inOtherRegion: (nodeId: string) => Promise<boolean>;
  private readonly maxHierarchyDepth: number;
  private readonly trashRetentionDays: number;

  constructor(options: NodeTreeServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.tree = options.tree;
    this.lists = options.lists;
    this.outbox = options.outbox;
    this.organizations = options.organizations;
    this.inOtherRegion = options.inOtherRegion;
    this.maxHierarchyDepth = options.maxHierarchyDepth;
    this.trashRetentionDays = options.trashRetentionDays;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  async move(principal: Principal, nodeId: string, targetId: string, force: boolean): Promise<NodeRow> {
    const seen = await this.nodes.authorize(principal, nodeId, 'edit');
    const target = await this.nodes.findWithAccess(principal, targetId);
    if (!target) {
      if (await this.inOtherRegion(targetId)) throw new ApiError('NodesInDifferentRegions');
      throw new ApiError('NotFound', 'Target parent not found');
    }
    requireAccess(principal, target, 'edit');
    if (target.node.trashed_at) throw new ApiError('MoveNodeFailed', 'The target parent is in the trash');

    const { tree } = this;
    try {
      return await tree.transaction(async (tx) => {
        // Fresh rows under lock: a concurrent change may have moved or trashed either branch.
        const locked = await tree.lockBranches(tx, [seen, target.node]);
        const node = locked?.get(nodeId);
        const parent = locked?.get(targetId);
        if (!node || !parent || node.trashed_at || parent.trashed_at) {
          throw new ApiError('MoveNodeFailed', 'The node or the target changed while moving');
        }
        // A division moved to its own parent is still a division that cannot move.
        if (!isMovableKind(node.kind as NodeKind)) throw new ApiError('NodeCannotBeMoved', `A ${node.kind} cannot be moved`);
        if (node.parent_id === parent.id) return node;

        const { group, strayDerivatives, straySources } = await this.linkedGroup(tx, node);
        const shape = await tree.subtreeShape(tx, node.path);
        const paths = group.map((member) => member.path);
        const subtreeMemberships = await Promise.all(paths.map((path) => tree.subtreeHasMemberships(tx, path)));
        const refusal = checkMove({
          node: toMoveNode(node),
          target: toMoveNode(parent),
          group: group.map(toMoveNode),
          strayDerivatives,
          straySources,
          subtreeHeight: shape.maxDepth > 0 ? shape.maxDepth - node.depth : 0,
          subtreeHasSite: shape.hasSite,
          subtreeHasData: shape.hasData,
          linkedToOutsideTwin: await tree.linkedToOutsideTwin(tx, paths),
          sourceBoundaryId: await tree.nearestBoundary(tx, parentPath(node.path)),
          targetBoundaryId: await tree.nearestBoundary(tx, parent.path),
          subtreeHasMemberships: subtreeMemberships.some(Boolean),
          maxDepth: this.maxHierarchyDepth,
          force,
        });
        if (refusal) throw new ApiError(refusal.code, refusal.message);

        const now = this.now();
        for (const member of group) await tree.moveSubtree(tx, member, parent, now);
        const moved = await tree.lock(tx, node.id);
        if (!moved) throw new ApiError('MoveNodeFailed');
        const event = { nodeId: node.id, kind: node.kind, fromParentId: node.parent_id, toParentId: parent.id };
        await this.outbox.record(tx, node.org_id, 'node.moved', event);
        return moved;
      });
    } catch (error) {
      if (isWriteConflict(error)) throw new ApiError('MoveNodeFailed', 'A concurrent change conflicted with the move; retry');
      throw error;
    }
  }

  /**
   * The node and the siblings linked to it, directly or through one another, as derivatives,
   * sources, a bundle's dependants (a planning project) or a dependant's bundle: they move
   * together (docs/design/hierarchy.md#derivatives), so a project moved takes its bundle and the
   * bundle's point cloud along. Linked nodes under another parent are counted as strays (a move is
   * refused).
   */
  private async linkedGroup(tx: Transaction<RegionalSchema>, node: NodeRow) {
    const group = new Map([[node.id, node]]);
    const pending = [node];
    let strayDerivatives = 0;
    let straySources = 0;
    for (let member = pending.pop(); member; member = pending.pop()) {
      const { derivatives, sources } = await this.tree.links(tx, member.id, ['derivative', 'dependant']);
      for (const [rows, isSource] of [
        [derivatives, false],
        [sources, true],
      ] as const) {
        for (const row of rows) {
          if (group.has(row.id)) continue;
          if (row.parent_id !== node.parent_id) {
            if (isSource) straySources += 1;
            else strayDerivatives += 1;
            continue;
          }
          group.set(row.id, row);
          pending.push(row);
        }
      }
    }
    return { group: [...group.values()], strayDerivatives, straySources };
  }

  async softDelete(principal: Principal, nodeId: string): Promise<void> {
    const seen = await this.nodes.authorize(principal, nodeId, 'delete');
    // The organization is refused at once: its facts would be a scan of the whole tree.
    const kindRefusal = checkDeletableKind(seen.kind as NodeKind);
    if (kindRefusal) throw new ApiError(kindRefusal.code, kindRefusal.message);
    const { tree } = this;
    try {
      await tree.transaction(async (tx) => {
        const node = (await tree.lockBranches(tx, [seen]))?.get(nodeId);
        if (!node || node.trashed_at) throw new ApiError('DeleteNodeFailed', 'The node changed while deleting');
        const facts = await tree.deleteFacts(tx, node);
        const refusal = checkSoftDelete({ kind: node.kind as NodeKind, ...facts });
        if (refusal) throw new ApiError(refusal.code, refusal.message, refusal.extra);
        await tree.trash(tx, node, this.now());
        await this.outbox.record(tx, node.org_id, 'node.trashed', { nodeId: node.id, kind: node.kind });
      });
    } catch (error) {
      if (isWriteConflict(error)) throw new ApiError('DeleteNodeFailed', 'A concurrent change conflicted with the delete; retry');
      throw error;
    }
  }

  listTrash(principal: Principal, page: ListPage): Promise<NodeListing[]> {
    return this.lists.trash(principal.orgId, { id: principal.userId, identityProvider: principal.identityProvider }, page);
  }

  async restore(principal: Principal, nodeId: string): Promise<NodeRow> {
    const node = await this.nodes.authorize(principal, nodeId, 'delete', 'any');
    if (!node.trashed_at) throw new ApiError('RestoreNodeFailed', 'The node is not in the trash');
    if (node.trash_root_id !== node.id) {
      throw new ApiError('RestoreNodeFailed', `The node went to the trash with ${node.trash_root_id}; restore that node`);
    }
    const org = await this.organizations.findOrganization(node.org_id);
    const { tree } = this;
    try {
      return await tree.transaction(async (tx) => {
        // The organization row, held exclusively, serializes quota checks: two restores cannot
        // both fit the same free bytes. A concurrent restore, hard delete or purge may have taken
        // the entry since it was read.
        const locked = await tree.lockBranches(tx, [{ id: node.org_id, path: `/${node.org_id}/` }, node]);
        const current = locked?.get(node.id);
        if (!current || current.trash_root_id !== current.id) {
          throw new ApiError('RestoreNodeFailed', 'The node changed while restoring');
        }
        const parent = current.parent_id ? await tree.lock(tx, current.parent_id) : undefined;
        if (!parent || parent.trashed_at) throw new ApiError('RestoreNodeFailed', 'The parent is in the trash; restore it first');
        const used = await tree.activeBytes(tx, current.org_id);
        const added = await tree.trashedBytes(tx, current.id);
        if (!fitsQuota(org?.storage_quota ?? null, used, added)) {
          throw new ApiError('StorageLimitExceeded', `Restoring ${added} bytes would exceed the storage quota`);
        }
        await tree.restore(tx, current.id);
        await this.outbox.record(tx, current.org_id, 'node.restored', { nodeId: current.id, kind: current.kind });
        return { ...current, trashed_at: null, trash_root_id: null };
      });
    } catch (error) {
      if (isWriteConflict(error))
        throw new ApiError('RestoreNodeFailed', 'A concurrent change conflicted with the restore; retry');
      throw error;
    }
  }

  async hardDelete(principal: Principal, nodeId: string): Promise<void> {
    const node = await this.nodes.authorize(principal, nodeId, 'delete', 'any');
    if (node.trash_root_id !== node.id) throw new ApiError('NoNodeRemoved');
    const removed = await this.tree.transaction(async (tx) => {
      const current = await this.tree.lock(tx, node.id);
      if (!current || current.trash_root_id !== current.id) return 0;
      const removed = await this.tree.removeSubtree(tx, current.path, this.now());
      await this.outbox.record(tx, current.org_id, 'node.deleted', { nodeId: current.id, kind: current.kind });
      return removed;
    });
    if (removed === 0) throw new ApiError('NoNodeRemoved');
  }

  /** Removes what has been in the trash longer than the retention period; returns the roots removed. */
  async purgeExpired(): Promise<number> {
    const cutoff = trashCutoff(this.clock.now(), this.trashRetentionDays);
    let purged = 0;
    for (;;) {
      const roots = await this.tree.expiredTrashRoots(cutoff, 100);
      for (const root of roots) {
        // Re-checked under the lock: a restore between the listing and now must win.
        const removed = await this.tree.transaction(async (tx) => {
          const current = await this.tree.lock(tx, root.id);
          if (!current || current.trash_root_id !== current.id || !current.trashed_at || current.trashed_at >= cutoff) return 0;
          const count = await this.tree.removeSubtree(tx, current.path, this.now());
          const event = { nodeId: current.id, kind: current.kind, purged: true };
          await this.outbox.record(tx, current.org_id, 'node.deleted', event);
          return count;
        });
        if (removed > 0) purged += 1;
      }
      if (roots.length < 100) return purged;
    }
  }
}
