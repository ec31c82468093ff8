import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { MembershipRepository } from '../adapters/db/repositories/membership-repository.js';
import type { NodeListRepository } from '../adapters/db/repositories/node-list-repository.js';
import type { NameMatch, NodeListing, NodeRepository, NodeWithAccess } from '../adapters/db/repositories/node-repository.js';
import { newNodeRow } from '../adapters/db/repositories/node-rows.js';
import type { NodeTreeRepository } from '../adapters/db/repositories/node-tree-repository.js';
import type { NodeRow, RegionalSchema } from '../adapters/db/schema.js';
import { PERMISSIONS, type Permission } from '../domain/access/permissions.js';
import { childrenTowards } from '../domain/access/places.js';
import type { Principal } from '../domain/access/principal.js';
import { ApiError, validationError } from '../domain/errors.js';
import type { ListPage } from '../domain/listing/cursor.js';
import { checkChild, type NodeKind } from '../domain/nodes/hierarchy.js';
import type { Clock } from '../ports/clock.js';
import type { WebhookOutbox } from './webhooks/webhook-outbox.js';

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

export interface NodeServiceOptions {
  clock: Clock;
  nodes: NodeRepository;
  /** Locks the parent's branch for a new child. */
  tree: NodeTreeRepository;
  /** Children pages after a cursor, and those on the way to the caller's places. */
  lists: NodeListRepository;
  /** The roles a caller holds: where its places are, for browsing towards them. */
  held: Pick<MembershipRepository, 'heldBy'>;
  outbox: Pick<WebhookOutbox, 'record'>;
  /** The organization's name is its node's: a rename writes it to the global store too (api-info reads it there). */
  organizations: Pick<DirectoryRepository, 'updateOrganization'>;
  maxHierarchyDepth: number;
}

/** What a service acting on nodes it is given needs of NodeService: the access check. */
export type NodeAccess = Pick<NodeService, 'authorize'>;

/** Node reads and simple writes of one region. Tree-wide changes live in NodeTreeService. */
export class NodeService {
  private readonly clock: Clock;
  private readonly nodes: NodeRepository;
  private readonly tree: NodeTreeRepository;
  private readonly lists: NodeListRepository;
  private readonly held: Pick<MembershipRepository, 'heldBy'>;
  private readonly outbox: Pick<WebhookOutbox, 'record'>;
  private readonly organizations: Pick<DirectoryRepository, 'updateOrganization'>;
  private readonly maxHierarchyDepth: number;

  constructor(options: NodeServiceOptions) {
    this.clock = options.clock;
    this.nodes = options.nodes;
    this.tree = options.tree;
    this.lists = options.lists;
    this.held = options.held;
    this.outbox = options.outbox;
    this.organizations = options.organizations;
    this.maxHierarchyDepth = options.maxHierarchyDepth;
  }

  /**
   * The node, if the caller's organization has it, the caller holds the permission on it, and
   * the caller's session came through every identity provider required on its path (requireAccess).
   * Another organization's node answers exactly like a missing one.
   */
  async authorize(principal: Principal, nodeId: string, permission: Permission, state: TrashState = 'active') {
    return this.admit(principal, await this.findWithAccess(principal, nodeId), permission, state);
  }

  /**
   * The node of the caller's organization with the caller's access to it, unchecked: for a caller
   * that decides itself what a missing node or a refusal means (requireAccess).
   */
  findWithAccess(principal: Principal, nodeId: string): Promise<NodeWithAccess | undefined> {
    return this.nodes.findWithAccess(principal.orgId, nodeId, principal.userId);
  }

  /**
   * authorize, with a read of the node's own rows beside the access check; the read is returned
   * only once the check has passed. The read carries the access version of its snapshot
   * (`accessVersionOf`), so that a cached access result is checked without a statement of its own
   * (NodeRepository.findWithAccessBeside); without a cached result both run at once (on
   * PostgreSQL the time of one round trip, not two).
   */
  async authorizeBeside<T>(
    principal: Principal,
    nodeId: string,
    permission: Permission,
    read: () => Promise<T>,
    accessVersionOf: (value: T) => number | undefined,
  ): Promise<{ node: NodeRow; read: T }> {
    const { found, value } = await this.nodes.findWithAccessBeside(
      principal.orgId,
      nodeId,
      principal.userId,
      read,
      accessVersionOf,
    );
    return { node: this.admit(principal, found, permission), read: value };
  }

  /** authorize's checks on an access result already read (with a read beside it). */
  private admit(principal: Principal, found: NodeWithAccess | undefined, permission: Permission, state: TrashState = 'active') {
    if (!found || (state === 'active' && found.node.trashed_at !== null)) throw new ApiError('NotFound', 'Node not found');
    requireAccess(principal, found, permission);
    return found.node;
  }

  /**
   * The first page of children is read with the access check (one statement on PostgreSQL), returned
   * only once it passes; a page after a cursor is checked first, then read by its key. A caller
   * that may not read the node but holds a role below it gets only the children on the way there
   * (towardsPlaces).
   */
  async browse(principal: Principal, nodeId: string, page: ListPage): Promise<NodeListing[]> {
    if (page.after) {
      const found = await this.findWithAccess(principal, nodeId);
      const towards = await this.towardsPlaces(principal, found);
      if (towards) return this.lists.childrenAmong(nodeId, towards, page);
      this.admit(principal, found, 'read');
      return this.lists.childrenAfter(nodeId, page.limit, page.after);
    }
    const { found, children } = await this.nodes.browse(principal.orgId, nodeId, principal.userId, page.limit, page.offset);
    const towards = await this.towardsPlaces(principal, found);
    if (towards) return this.lists.childrenAmong(nodeId, towards, page);
    this.admit(principal, found, 'read');
    return children;
  }

  /**
   * The children of an active node the caller may not read that lead down to its places
   * (docs/design/places.md, "Browsing towards places"), or undefined when the ordinary check
   * decides: the caller reads the node, the node is missing or trashed, or no place lies below it.
   * Only browse asks: every other operation on the node stays refused. A way that passes a node
   * restricted to another identity provider is refused as the place itself would be.
   */
  private async towardsPlaces(principal: Principal, found: NodeWithAccess | undefined): Promise<string[] | undefined> {
    if (!found || found.node.trashed_at !== null || found.permissions.has('read')) return undefined;
    const held = await this.held.heldBy(principal.orgId, principal.userId);
    const children = childrenTowards(
      found.node.id,
      held.map((role) => role.path),
    );
    if (children.size === 0) return undefined;
    if (found.requiredIdentityProviders.some((provider) => provider !== principal.identityProvider)) {
      throw new ApiError('SSORestrictedResource');
    }
    return [...children];
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
    const { tree } = this;
    // From the parent's fresh row under a branch lock: a concurrent move or soft delete of an
    // ancestor would otherwise leave the child with a stale path, or active under the trash.
    return tree.transaction(async (tx) => {
      const parent = await tree.lockForChild(tx, seen);
      if (!parent || parent.trashed_at) throw new ApiError('NotFound', 'Node not found');
      const row = await this.insertChild(tx, parent, kind, name, address);
      await withNode?.(tx, row);
      await this.outbox.record(tx, row.org_id, 'node.created', {
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
    checkChild(placement, kind, this.maxHierarchyDepth);
  }

  private async insertChild(tx: Transaction<RegionalSchema>, parent: NodeRow, kind: NodeKind, name: string, address?: string) {
    this.checkChild(parent, kind);
    const row = newNodeRow(parent, { kind, name, address, now: this.clock.now().toISOString() });
    await this.nodes.insert(row, tx);
    return row;
  }

  async update(principal: Principal, nodeId: string, changes: { name?: string; address?: string }): Promise<NodeRow> {
    const node = await this.authorize(principal, nodeId, 'edit');
    if (changes.address !== undefined && node.kind !== 'site') throw validationError('body.address: only a site has an address');
    const fields = {
      ...(changes.name !== undefined ? { name: changes.name, name_key: changes.name.toLowerCase() } : {}),
      ...(changes.address !== undefined ? { address: changes.address } : {}),
      updated_at: this.clock.now().toISOString(),
    };
    await this.nodes.update(node.id, fields);
    // The organization node's name is the organization's: api-info reads it from the global store.
    if (node.kind === 'organization' && changes.name !== undefined) {
      await this.organizations.updateOrganization(node.id, { name: changes.name, updated_at: fields.updated_at });
    }
    return { ...node, ...fields };
  }

  /**
   * A node with its active derivatives and sources and the caller's permissions on it (in the
   * catalog's order), for GET /v1/nodes/{nodeId}: what a client may offer, read in the same check.
   */
  async get(principal: Principal, nodeId: string) {
    const { found, derivatives, sources } = await this.nodes.getWithLinks(principal.orgId, nodeId, principal.userId);
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
    return this.nodes.search({
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
    const thumbnail = await this.nodes.getThumbnail(node.id);
    if (!thumbnail) throw new ApiError('NotFound', 'The node has no thumbnail');
    return thumbnail;
  }

  async putThumbnail(principal: Principal, nodeId: string, contentType: string, bytes: Buffer) {
    const node = await this.authorize(principal, nodeId, 'edit');
    const etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
    await this.nodes.putThumbnail(node.id, contentType, bytes, etag, this.clock.now().toISOString());
    return { etag, contentType, size: bytes.length };
  }

  async deleteThumbnail(principal: Principal, nodeId: string): Promise<void> {
    const node = await this.authorize(principal, nodeId, 'edit');
    if (!(await this.nodes.deleteThumbnail(node.id))) throw new ApiError('NotFound', 'The node has no thumbnail');
  }
}
