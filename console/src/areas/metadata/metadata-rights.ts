import { managesOrganization } from '../../auth/organization-rights.js';
import type { ConsoleSession } from '../../auth/session.js';
import { canWriteTree } from '../nodes/node-rights.js';

/**
 * Whether the person may create, change and delete metadata types: write:hierarchy and manage on
 * the organization node (docs/twins.md, "Metadata types"). The platform checks every call anyway;
 * this only keeps the screen's navigation and buttons out of sight.
 */
export async function managesMetadataTypes(session: ConsoleSession): Promise<boolean> {
  return canWriteTree(session) && managesOrganization(session);
}
