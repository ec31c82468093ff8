import type { Schema } from '@reality-data-platform/sdk/browser';

export type Node = Schema<'Node'>;
export type NodeType = Node['type'];

/**
 * A node as GET /v1/nodes/{nodeId} answers it: with the caller's permissions on it (read,
 * edit, manage, delete...), which decide the actions the console offers.
 */
export type NodeDetail = Node & { permissions?: string[] };

/**
 * Each kind's readable name and its icon as text (no icon library; the icon is decoration):
 * geometric shapes that common fonts carry (DejaVu, Segoe UI Symbol), not emoji, which a machine
 * without an emoji font shows as empty boxes.
 */
export const NODE_KINDS: Record<NodeType, { name: string; icon: string }> = {
  organization: { name: 'Organization', icon: '⌂' },
  division: { name: 'Division', icon: '▦' },
  site: { name: 'Site', icon: '◉' },
  folder: { name: 'Folder', icon: '▱' },
  dataBundle: { name: 'Data bundle', icon: '▣' },
  siteFile: { name: 'Site file', icon: '▤' },
  pointCloud: { name: 'Point cloud', icon: '☁' },
  mesh: { name: 'Mesh', icon: '△' },
  twin: { name: 'Twin', icon: '◈' },
  dataSource: { name: 'Data source', icon: '⇄' },
  planningProject: { name: 'Planning project', icon: '▧' },
};

export function kindName(type: NodeType): string {
  return NODE_KINDS[type]?.name ?? type;
}

/** The kinds that hold other nodes: browsed, and places to create in or move to. */
export const CONTAINER_TYPES: NodeType[] = ['organization', 'division', 'site', 'folder'];

export function isContainer(type: NodeType): boolean {
  return CONTAINER_TYPES.includes(type);
}

/** The kinds a person creates on the tree screens (data items come from uploads and processing). */
export type CreatableType = 'division' | 'site' | 'folder';

/**
 * What a node of `type` may hold among the creatable kinds, as the platform's hierarchy rules
 * say (docs/design/hierarchy.md#node-kinds): organization > division > site | folder; a folder
 * outside a site holds sites and folders; a site, or a folder inside one, holds folders (and data).
 */
export function creatableChildren(type: NodeType, insideSite: boolean): CreatableType[] {
  switch (type) {
    case 'organization':
      return ['division'];
    case 'division':
      return ['site', 'folder'];
    case 'site':
      return ['folder'];
    case 'folder':
      return insideSite ? ['folder'] : ['site', 'folder'];
    default:
      return [];
  }
}

/** Organizations and divisions stay where they are; the platform refuses to move them. */
export function isMovable(type: NodeType): boolean {
  return type !== 'organization' && type !== 'division';
}
