import { ApiError } from '../errors.js';

/**
 * The rules of groups (docs/people.md, "Groups"; the spec's groups error table). No I/O: the
 * service reads the group and the member state and asks these. When several refusals apply, the
 * SAML link is reported first, then SCIM, then the member state.
 */

/** What the rules look at in a group. */
export interface GroupState {
  scimManaged: boolean;
  samlLinked: boolean;
  /** The owning division; null for an organization group. */
  divisionId: string | null;
}

/** Names are unique within an organization without regard to case; stored as given, never trimmed. */
export function groupNameKey(name: string): string {
  return name.toLowerCase();
}

/** A member may be added by hand only to a group that neither SAML nor SCIM fills. */
export function checkMemberAddition(group: GroupState, alreadyMember: boolean): void {
  if (group.samlLinked) throw new ApiError('GroupHasSamlLink');
  if (group.scimManaged) throw new ApiError('CannotInviteToSCIMGroup');
  if (alreadyMember) throw new ApiError('UserAlreadyMember');
}

/** The same for removal; removing someone who is not a member is a 404. */
export function checkMemberRemoval(group: GroupState, isMember: boolean): void {
  if (group.samlLinked) throw new ApiError('GroupHasSamlLink');
  if (group.scimManaged) throw new ApiError('CannotRemoveMemberFromSCIMGroup');
  if (!isMember) throw new ApiError('NotFound', 'The user is not a member of the group');
}

/** The identity provider owns a SCIM-managed group: its name, owner and flags. */
export function checkGroupUpdate(group: GroupState): void {
  if (group.scimManaged) throw new ApiError('CannotUpdateMemberFromSCIMGroup');
}

/**
 * A name is free unless another group of the organization has it (any case). When that group is
 * SCIM-managed the identity provider owns the name, and the answer says so.
 */
export function checkNameFree(holder: { scimManaged: boolean } | undefined): void {
  if (!holder) return;
  if (holder.scimManaged) {
    throw new ApiError('CannotUpdateMemberFromSCIMGroup', 'A group with this name is managed by SCIM provisioning');
  }
  throw new ApiError('DuplicateGroupName');
}

/** SCIM-managed groups go away through SCIM; organization groups first need an owning division. */
export function checkGroupRemoval(group: GroupState): void {
  if (group.scimManaged) throw new ApiError('CannotRemoveSCIMGroup');
  if (group.divisionId === null) {
    throw new ApiError(
      'CannotRemoveOrganizationGroup',
      'An organization group belongs to every division; give it an owning division with PATCH first',
    );
  }
}

/**
 * A division's group holds memberships only inside its division: a group given an owning
 * division must have none elsewhere. `membershipPaths` are the paths of the nodes it has
 * memberships on; `divisionPath` the new owner's.
 */
export function checkMembershipsInside(membershipPaths: readonly string[], divisionPath: string): void {
  const outside = membershipPaths.find((path) => !path.startsWith(divisionPath));
  if (outside !== undefined) {
    throw new ApiError(
      'GroupOutsideDivision',
      'The group has memberships outside that division; remove them before giving it this owning division',
    );
  }
}
