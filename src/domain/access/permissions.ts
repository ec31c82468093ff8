/** Layer 3 of the access layers: what a role allows on a node. */
export const PERMISSIONS = ['read', 'download', 'edit', 'upload', 'process', 'manage', 'delete'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export type RoleKind = 'administrative' | 'custom';

export interface RoleTemplate {
  name: string;
  kind: RoleKind;
  permissions: Permission[];
}

/** The roles every organization starts with. Administrative roles apply at organization level only. */
export const DEFAULT_ROLES: RoleTemplate[] = [
  { name: 'Organization Administrator', kind: 'administrative', permissions: [...PERMISSIONS] },
  { name: 'Organization Reader', kind: 'administrative', permissions: ['read'] },
  { name: 'Viewer', kind: 'custom', permissions: ['read', 'download'] },
  { name: 'Contributor', kind: 'custom', permissions: ['read', 'download', 'edit', 'upload', 'process'] },
  { name: 'Manager', kind: 'custom', permissions: [...PERMISSIONS] },
];

export const ORGANIZATION_ADMIN_ROLE = 'Organization Administrator';

/** Union of the permissions of several roles, given as their stored JSON arrays. */
export function unionPermissions(rolePermissionJson: Iterable<string | null>): Set<Permission> {
  const granted = new Set<Permission>();
  for (const json of rolePermissionJson) {
    if (!json) continue;
    for (const permission of JSON.parse(json) as Permission[]) granted.add(permission);
  }
  return granted;
}
