import { ok, RdpApiError } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import { type CreatableType, creatableChildren, isMovable, type NodeDetail } from './node-kinds.js';

/** The write actions the console offers on a node. */
export interface NodeRights {
  create: CreatableType[];
  rename: boolean;
  move: boolean;
  trash: boolean;
}

export const NO_RIGHTS: NodeRights = { create: [], rename: false, move: false, trash: false };

/** Whether the person's token may write the tree at all (write:hierarchy), whatever their roles. */
export function canWriteTree(session: ConsoleSession): boolean {
  return session.hasScope('write:hierarchy');
}

/**
 * What the person may do on `node`, from its `permissions` (their roles on it and above) and
 * the permission each operation needs on the platform (docs/api-decisions.md): a division needs
 * manage on its parent; a site or folder, renaming and moving need edit; the trash needs delete.
 * The platform checks every call anyway; this only keeps out of sight what would be refused.
 */
export function nodeRights(session: ConsoleSession, node: NodeDetail, insideSite: boolean): NodeRights {
  if (!canWriteTree(session)) return NO_RIGHTS;
  const has = (permission: string) => node.permissions?.includes(permission) ?? false;
  const create = creatableChildren(node.type, insideSite).filter((type) => has(type === 'division' ? 'manage' : 'edit'));
  return {
    create,
    rename: has('edit'),
    move: has('edit') && isMovable(node.type),
    trash: has('delete') && node.type !== 'organization',
  };
}

/** The person's permissions on the organization's node (their roles there); none when their access starts below it. */
export async function organizationPermissions(session: ConsoleSession): Promise<string[]> {
  try {
    const node = await ok(session.api.GET('/v1/nodes/{nodeId}', { params: { path: { nodeId: session.info.organization.id } } }));
    return (node as { permissions?: string[] }).permissions ?? [];
  } catch (error) {
    // Someone whose access starts below the organization cannot read its node: not an administrator.
    if (error instanceof RdpApiError && (error.status === 403 || error.status === 404)) return [];
    throw error;
  }
}
