import { managesOrganization } from '../../auth/organization-rights.js';
import type { ConsoleSession } from '../../auth/session.js';

/**
 * Whether the person manages the organization's webhooks: every webhook call needs the webhook
 * scopes and manage on the organization node (docs/webhooks.md). Only keeps the area out of
 * sight of others; the platform checks every call.
 */
export async function managesWebhooks(session: ConsoleSession): Promise<boolean> {
  return session.hasScope('read:webhooks') && session.hasScope('write:webhooks') && managesOrganization(session);
}
