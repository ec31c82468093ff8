import type { AuditActor } from '../../adapters/db/repositories/audit-repository.js';
import type { RegionContext } from '../../platform.js';

/** Who calls the SCIM surface: an organization's identity provider, known by its token. */
export interface ScimContext {
  orgId: string;
  tokenId: string;
  /** The organization's region: its groups and its audit trail. */
  region: RegionContext;
  /** The SCIM endpoint's address; resource locations derive from it. */
  baseUrl: string;
}

export function scimActor(context: ScimContext): AuditActor {
  return { type: 'scim', id: context.tokenId };
}
