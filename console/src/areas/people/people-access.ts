import { managesOrganization } from '../../auth/organization-rights.js';
import type { ConsoleSession } from '../../auth/session.js';

/** Whether the person's token may read and change people at all (read:user, write:user), whatever their roles. */
export function hasPeopleScopes(session: ConsoleSession): boolean {
  return session.hasScope('read:user') && session.hasScope('write:user');
}

/**
 * Whether the person administers the organization's people: inviting to the organization, its
 * groups and its audit trail all need manage on the organization node (docs/people.md, "Who
 * may do what"), with the people scopes.
 */
export async function administersPeople(session: ConsoleSession): Promise<boolean> {
  return hasPeopleScopes(session) && managesOrganization(session);
}
