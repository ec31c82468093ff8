import { PERMISSIONS, type Permission } from '../access/permissions.js';
import { ApiError } from '../errors.js';
import { isContainerKind, type NodeKind } from '../nodes/hierarchy.js';

/**
 * Administrative roles are the platform's, the same in every organization, and given on the
 * organization node only. Their ids are readable slugs, so an unknown id can be told apart
 * from an unknown custom role (a UUID): AdminsitrativeRoleNotFound versus CustomRoleNotFound.
 */
export const ADMINISTRATIVE_ROLES = [
  { id: 'organization-administrator', name: 'Organization Administrator', permissions: [...PERMISSIONS] },
  { id: 'organization-reader', name: 'Organization Reader', permissions: ['read'] },
] as const satisfies readonly { id: string; name: string; permissions: readonly Permission[] }[];

export const ORGANIZATION_ADMINISTRATOR_ROLE_ID = 'organization-administrator';

/** The custom roles every organization starts with; admins may change or remove them. */
export const DEFAULT_CUSTOM_ROLES: { name: string; permissions: Permission[] }[] = [
  { name: 'Viewer', permissions: ['read', 'download'] },
  { name: 'Contributor', permissions: ['read', 'download', 'edit', 'upload', 'process'] },
  { name: 'Manager', permissions: [...PERMISSIONS] },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Custom role ids are UUIDs; anything else names (or fails to name) an administrative role. */
export function isCustomRoleId(id: string): boolean {
  return UUID.test(id);
}

export interface AssignableRole {
  id: string;
  kind: 'administrative' | 'custom';
}

/**
 * The role a membership or an invitation may give on a node, or the spec's error: an
 * administrative role only on the organization node, a custom role only on container nodes.
 * `role` is the organization's role with that id, if there is one.
 */
export function checkRoleAssignment(roleId: string, role: AssignableRole | undefined, nodeKind: NodeKind): AssignableRole {
  if (!role) {
    throw isCustomRoleId(roleId)
      ? new ApiError('CustomRoleNotFound', `No custom role ${roleId} in this organization`)
      : new ApiError('AdminsitrativeRoleNotFound', `No administrative role ${roleId}`);
  }
  if (role.kind === 'administrative' && nodeKind !== 'organization') {
    throw new ApiError('AdministrativeRoleInvalidNode', 'An administrative role is given at the organization level only');
  }
  if (role.kind === 'custom' && !isContainerKind(nodeKind)) {
    throw new ApiError('CustomRoleNotAssignableToDataNode', `A custom role cannot be given on a ${nodeKind}`);
  }
  return role;
}

/** Permissions as stored: known names only, each once, in the catalog's order. */
export function normalizePermissions(requested: readonly string[]): Permission[] {
  const unknown = requested.filter((name) => !(PERMISSIONS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ApiError('ValidationError', `body.permissions: unknown permission ${unknown[0]}; one of ${PERMISSIONS.join(', ')}`);
  }
  return PERMISSIONS.filter((name) => requested.includes(name));
}

/** The role rows an organization starts with: the administrative catalog and the default custom roles. */
export function organizationRoleRows(orgId: string, now: string, newId: () => string) {
  const row = (id: string, name: string, kind: 'administrative' | 'custom', permissions: readonly Permission[]) => ({
    org_id: orgId,
    id,
    name,
    name_key: name.toLowerCase(),
    kind,
    permissions: JSON.stringify(permissions),
    created_at: now,
    updated_at: now,
  });
  return [
    ...ADMINISTRATIVE_ROLES.map((role) => row(role.id, role.name, 'administrative', role.permissions)),
    ...DEFAULT_CUSTOM_ROLES.map((role) => row(newId(), role.name, 'custom', role.permissions)),
  ];
}
