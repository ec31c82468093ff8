import type { ConsoleSession } from '../../auth/session.js';
import { organizationPermissions } from '../nodes/node-rights.js';

/** Whether the person's token may read and change people at all (read:user, write:user), whatever their roles. */
export function hasPeopleScopes(session: ConsoleSession): boolean {
  return session.hasScope('read:user') && session.hasScope('write:user');
}

const answers = new WeakMap<ConsoleSession, Promise<boolean>>();

/**
 * Whether the person administers the organization's people: inviting to the organization, its
 * groups and its audit trail all need manage on the organization node (docs/people.md, "Who
 * may do what"), which their permissions there tell. Read once per session; the platform
 * checks every call anyway, this only keeps the People area out of sight of others.
 */
export function administersPeople(session: ConsoleSession): Promise<boolean> {
  let answer = answers.get(session);
  if (!answer) {
    answer = hasPeopleScopes(session)
      ? organizationPermissions(session).then((permissions) => permissions.includes('manage'))
      : Promise.resolve(false);
    answers.set(session, answer);
  }
  return answer;
}
