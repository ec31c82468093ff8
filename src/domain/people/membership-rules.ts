import { ApiError } from '../errors.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID } from './roles.js';

export type PrincipalType = 'user' | 'service' | 'group';

/**
 * A division's group reaches only its own division: a membership outside it would give its
 * members access that the division's administrators do not govern. `nodePath` lists the node's
 * ancestors and itself ("/org/division/site/"); an organization group may go anywhere.
 */
export function checkGroupScope(group: { division_id: string | null }, nodePath: string): void {
  if (group.division_id !== null && !nodePath.includes(`/${group.division_id}/`)) {
    throw new ApiError('GroupOutsideDivision', `The group belongs to division ${group.division_id}; the node is outside it`);
  }
}

/**
 * Whether a membership makes its holder an administrator of the organization's settings pages
 * (user_organizations.is_admin): the Organization Administrator role, given directly to a user
 * or service user on the organization node. A group's members do not become administrators.
 */
export function isAdministration(membership: { nodeKind: string; principalType: PrincipalType; roleId: string }): boolean {
  return (
    membership.nodeKind === 'organization' &&
    membership.principalType !== 'group' &&
    membership.roleId === ORGANIZATION_ADMINISTRATOR_ROLE_ID
  );
}

/**
 * The organization keeps at least one active person who administers it: a change that takes
 * the role (removal, another role, deactivation) from the last one is refused. Service users do
 * not count, as nobody can sign in to the settings pages as one. `activeAdministratorIds` are
 * the active people holding the role directly on the organization node.
 */
export function checkNotLastAdministrator(userId: string, activeAdministratorIds: readonly string[]): void {
  if (activeAdministratorIds.includes(userId) && activeAdministratorIds.length <= 1) {
    throw new ApiError('LastAdministrator', 'The organization would be left without an active administrator');
  }
}
