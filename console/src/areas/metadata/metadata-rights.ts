import type { ConsoleSession } from '../../auth/session.js';
import { canWriteTree, organizationPermissions } from '../nodes/node-rights.js';

const answers = new WeakMap<ConsoleSession, Promise<boolean>>();

/**
 * Whether the person may create, change and delete metadata types: write:hierarchy and manage on
 * the organization node (docs/twins.md, "Metadata types"). Read once per session; the platform
 * checks every call anyway, this only keeps the screen's navigation and buttons out of sight.
 */
export function managesMetadataTypes(session: ConsoleSession): Promise<boolean> {
  let answer = answers.get(session);
  if (!answer) {
    answer = canWriteTree(session)
      ? organizationPermissions(session).then((permissions) => permissions.includes('manage'))
      : Promise.resolve(false);
    answers.set(session, answer);
  }
  return answer;
}
