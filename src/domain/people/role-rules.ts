import { ApiError } from '../errors.js';

/** Administrative roles are the platform's, the same in every organization: not renamed, changed or removed. */
export function checkRoleEditable(role: { kind: 'administrative' | 'custom' }): void {
  if (role.kind === 'administrative') throw new ApiError('AdministrativeRoleNotEditable');
}

/** A role still given by a membership or a live invitation stays: removing it would leave them pointing at nothing. */
export function checkRoleUnused(use: { memberships: number; invitations: number }): void {
  if (use.memberships > 0 || use.invitations > 0) {
    throw new ApiError(
      'RoleInUse',
      `The role is still given by ${use.memberships} membership(s) and ${use.invitations} pending invitation(s)`,
    );
  }
}
