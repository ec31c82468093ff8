/** The node kinds and the rules on which kind may sit where (docs/design/hierarchy.md#node-kinds). No I/O. */
import { ApiError } from '../errors.js';

export const DATA_KINDS = ['dataBundle', 'siteFile', 'pointCloud', 'mesh', 'twin', 'dataSource', 'planningProject'] as const;
export const NODE_KINDS = ['organization', 'division', 'site', 'folder', ...DATA_KINDS] as const;

export type NodeKind = (typeof NODE_KINDS)[number];
export type DataKind = (typeof DATA_KINDS)[number];

export function isDataKind(kind: string): kind is DataKind {
  return (DATA_KINDS as readonly string[]).includes(kind);
}

/** Organizations and divisions are fixed in place. */
export function isMovableKind(kind: NodeKind): boolean {
  return kind !== 'organization' && kind !== 'division';
}

/** Container nodes hold other nodes; custom roles are assignable only on them. */
export function isContainerKind(kind: NodeKind): boolean {
  return !isDataKind(kind);
}

/** Where a node stands: its kind and whether a site is at or above it. */
export interface Placement {
  kind: NodeKind;
  inSite: boolean;
}

/**
 * organization > division > (site | folder); a folder outside a site > (site | folder);
 * site > (folder | data); a folder inside a site > (folder | data). Data items hold nothing.
 */
export function allowsChild(parent: Placement, child: NodeKind): boolean {
  switch (parent.kind) {
    case 'organization':
      return child === 'division';
    case 'division':
      return child === 'site' || child === 'folder';
    case 'site':
      return child === 'folder' || isDataKind(child);
    case 'folder':
      return parent.inSite ? child === 'folder' || isDataKind(child) : child === 'site' || child === 'folder';
    default:
      return false;
  }
}

/**
 * Whether `parent` (at `depth`) may take a new `child`: the kind rules, then the depth limit.
 * Throws the 409 the API answers; every way a node comes into the tree checks this.
 */
export function checkChild(parent: Placement & { depth: number }, child: NodeKind, maxDepth: number): void {
  if (!allowsChild(parent, child)) {
    throw new ApiError('DoesNotMeetHierarchyConstraints', `A ${parent.kind} cannot hold a ${child}`);
  }
  if (parent.depth + 1 > maxDepth) {
    throw new ApiError('MaxDepthExceeded', `A node at depth ${parent.depth + 1} would exceed the maximum of ${maxDepth}`);
  }
}

/** Whether a node at this placement lies inside a site (for its own children). */
export function childInSite(parent: Placement, child: NodeKind): boolean {
  return parent.inSite || parent.kind === 'site' || child === 'site';
}

export const NAME_MAX_LENGTH = 255;

/** Names and site addresses: 1 to 255 characters, never trimmed or truncated. */
export function checkNameLength(field: string, value: string): string | null {
  const length = [...value].length;
  if (length < 1) return `${field} must not be empty`;
  if (length > NAME_MAX_LENGTH) return `${field} must be at most ${NAME_MAX_LENGTH} characters, got ${length}`;
  return null;
}
