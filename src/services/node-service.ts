import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { NameMatch, NodeListing, NodeWithAccess } from '../adapters/db/repositories/node-repository.js';
import { newNodeRow } from '../adapters/db/repositories/node-rows.js';
import type { NodeRow, RegionalSchema } from '../adapters/db/schema.js';
import { PERMISSIONS, type Permission } from '../domain/access/permissions.js';
import type { Principal } from '../domain/access/principal.js';
import { ApiError, validationError } from '../domain/errors.js';
import type { ListPage } from '../domain/listing/cursor.js';
import { checkChild, type NodeKind } from '../domain/nodes/hierarchy.js';
import type { Platform, RegionContext } from '../platform.js';

type TrashState = 'active' | 'any';

/**
 * Layers 2 and 3 on a node the caller's organization has, plus its SSO restriction: the
 * permission is decided first, as a caller who may not act at all learns nothing from signing in
 * elsewhere; then every identity provider required on the node's path must be the token's.
 */
export function requireAccess(principal: Principal, found: NodeWithAccess, permission: Permission): void {
  if (!found.permissions.has(permission)) throw new ApiError('ForbiddenResource');
  if (found.requiredIdentityProviders.some((provider) => provider !== principal.identityProvider)) {
    throw new ApiError('SSORestrictedResource');
  }
}

/** Node reads and simple writes of one region. Tree-wide changes live in NodeTreeService. */
export class NodeService {
  constructor(
    private readonly platform: Platform,
    private readonly region: RegionContext,
  ) {}

  /**
   * The node, if the caller's organization has it, the caller holds the permission on it, and
   * the caller's session came through every identity provider required on its path (requireAccess).
   * Another organization's node answers exactly like a missing one.
   */
  async authorize(principal: Principal, nodeId: string, permission: Permission, state: TrashState = 'active') {
    const found = await this.region.nodes.findWithAccess(principal.orgId, nodeId, principal.userId);
    return this.admit(principal, found, permission, state);
  }

  /** authorize's checks on an access result already read (with a read beside it). */
  private admit(principal: Principal, found: NodeWithAccess | undefined, permission: Permission, state: TrashState = 'active') {
    if (!found || (state === 'active' && found.node.trashed_at !== null)) throw new ApiError('NotFound', 'Node not found');
    requireAccess(principal, found, permission);
    return found.node;
  }

  /**
   * The first page of children is read with the access check (one statement on PostgreSQL), returned
   * only once it passes; a page after a cursor is checked first, then read by its key.
   */
  async browse(principal: Principal, nodeId: string, page: ListPage): Promise<NodeListing[]> {
    if (page.after) {
      await this.authorize(principal, nodeId, 'read');
      return this.region.lists.childrenAfter(nodeId, page.limit, page.after);
    }
    const { found, children } = await this.region.nodes.browse(
      principal.orgId,
      nodeId,
      principal.userId,
      page.limit,
      page.offset,
    );
    this.admit(principal, found, 'read');
    return children;
  }

  /** `withNode` writes what hangs off the new node (a bundle's row) in the same transaction. */
  async create(
    principal: Principal,
    parentId: string,
    kind: NodeKind,
    name: string,
    address?: string,
    withNode?: (tx: Transaction<RegionalSchema>, row: NodeRow) => Promise<void>,
  ): Promise<NodeRow> {
    const seen = await this.authorize(principal, parentId, kind === 'division' ? 'manage' : 'edit');
    const { tree } = this.region;
    // From the parent's fresh row under a branch lock: a concurrent move or soft delete of an
    // ancestor would otherwise leave the child with a stale path, or active under the trash.
    return tree.transaction(async (tx) => {
      const parent = await tree.lockForChild(tx, seen);
      if (!parent || parent.trashed_at) throw new ApiError('NotFound', 'Node not found');
      const row = await this.insertChild(tx, parent, kind, name, address);
      await withNode?.(tx, row);
      await this.region.outbox.record(tx, row.org_id, 'node.created', {
        nodeId: row.id,
        kind: row.kind,
        parentId: row.parent_id,
      });
      return row;
    });
  }

  /** Refuses a new `kind` under `parent` (checkChild): call it on the parent's fresh, locked row. */
  checkChild(parent: NodeRow, kind: NodeKind): void {
    const placement = { kind: parent.kind as NodeKind, inSite: parent.site_id !== null, depth: parent.depth };
    checkChild(placement, kind, this.platform.config.maxHierarchyDepth);
  }

  private async insertChild(tx: Transaction<RegionalSchema>, parent: NodeRow, kind: NodeKind, name: string, address?: string) {
    this.checkChild(parent, kind);
    const row = newNodeRow(parent, { kind, name, address, now: this.platform.clock.now().toISOString() });
    await this.region.nodes.insert(row, tx);
    return row;
  }

  async update(principal: Principal, nodeId: string, changes: { name?: string; address?: string }): Promise<NodeRow> {
    const node = await this.authorize(principal, nodeId, 'edit');
    if (changes.address !== undefined && node.kind !== 'site') throw validationError('body.address: only a site has an address');
    const fields = {
      ...(changes.name !== undefined ? { name: changes.name, name_key: changes.name.toLowerCase() } : {}),
      ...(changes.address !== undefined ? { address: changes.address } : {}),
      updated_at: this.platform.clock.now().toISOString(),
    };
    await this.region.nodes.update(node.id, fields);
    // The organization node's name is the organization's: api-info reads it from the global store.
    if (node.kind === 'organization' && changes.name !== undefined) {
      await this.platform.directory.updateOrganization(node.id, { name: changes.name, updated_at: fields.updated_at });
    }
    return { ...node, ...fields };
  }

  /**
   * A node with its active derivatives and sources and the caller's permissions on it (in the
   * catalog's order), for GET /v1/nodes/{nodeId}: what a client may offer, read in the same check.
   */
  async get(principal: Principal, nodeId: string) {
    const { found, derivatives, sources } = await this.region.nodes.getWithLinks(principal.orgId, nodeId, principal.userId);
    const node = this.admit(principal, found, 'read');
    const permissions = PERMISSIONS.filter((permission) => found?.permissions.has(permission));
    return { node, derivatives, sources, permissions };
  }

  async search(
    principal: Principal,
    params: {
      query: string;
      match: NameMatch;
      kinds?: string[];
      underNodeId?: string;
      includeTrashed: boolean;
      limit: number;
      offset: number;
    },
  ): Promise<NodeRow[]> {
    const under = params.underNodeId ? await this.authorize(principal, params.underNodeId, 'read') : undefined;
    return this.region.nodes.search({
      orgId: principal.orgId,
      principalId: principal.userId,
      identityProvider: principal.identityProvider,
      query: params.query,
      match: params.match,
      kinds: params.kinds,
      underPath: under?.path,
      includeTrashed: params.includeTrashed,
      limit: params.limit,
      offset: params.offset,
    });
  }

  async getThumbnail(principal: Principal, nodeId: string) {
    const node = await this.authorize(principal, nodeId, 'read');
    const thumbnail = await this.region.nodes.getThumbnail(node.id);
    if (!thumbnail) throw new ApiError('NotFound', 'The node has no thumbnail');
    return thumbnail;
  }

  async putThumbnail(principal: Principal, nodeId: string, contentType: string, bytes: Buffer) {
    const node = await this.authorize(principal, nodeId, 'edit');
    const etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
    await this.region.nodes.putThumbnail(node.id, contentType, bytes, etag, this.platform.clock.now().toISOString());
    return { etag, contentType, size: bytes.length };
  }

  async deleteThumbnail(principal: Principal, nodeId: string): Promise<void> {
    const node = await this.authorize(principal, nodeId, 'edit');
    if (!(await this.region.nodes.deleteThumbnail(node.id))) throw new ApiError('NotFound', 'The node has no thumbnail');
  }
}
