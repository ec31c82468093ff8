/** Layer 3 of the access layers: what a role allows on a node. */
export const PERMISSIONS = ['read', 'download', 'edit', 'upload', 'process', 'manage', 'delete'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Union of the permissions of several roles, given as their stored JSON arrays. */
export function unionPermissions(rolePermissionJson: Iterable<string | null>): Set<Permission> {
  const granted = new Set<Permission>();
  for (const json of rolePermissionJson) {
    if (!json) continue;
    for (const permission of JSON.parse(json) as Permission[]) granted.add(permission);
  }
  return granted;
}
