import { ok, RdpApiError } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from './session.js';

const answers = new WeakMap<ConsoleSession, Promise<boolean>>();

/**
 * Whether the person holds manage on the organization node (an Organization Administrator):
 * people, groups, the audit trail and webhooks all need it (docs/people.md, docs/webhooks.md),
 * which their permissions there tell. Read once per session; the platform checks every call
 * anyway, this only keeps administrators' areas out of sight of others.
 */
export function managesOrganization(session: ConsoleSession): Promise<boolean> {
  let answer = answers.get(session);
  if (!answer) {
    answer = organizationPermissions(session).then((permissions) => permissions.includes('manage'));
    answer.catch(() => answers.delete(session));
    answers.set(session, answer);
  }
  return answer;
}

async function organizationPermissions(session: ConsoleSession): Promise<string[]> {
  try {
    const node = await ok(session.api.GET('/v1/nodes/{nodeId}', { params: { path: { nodeId: session.info.organization.id } } }));
    return (node as { permissions?: string[] }).permissions ?? [];
  } catch (error) {
    // Someone whose access starts below the organization cannot read its node: not an administrator.
    if (error instanceof RdpApiError && (error.status === 403 || error.status === 404)) return [];
    throw error;
  }
}
