import type { AuditActor } from '../../adapters/db/repositories/audit-repository.js';
import type { RegionContext } from '../../platform.js';

/** Who calls the SCIM surface: an organization's identity provider, known by its token. */
export interface ScimContext {
  orgId: string;
  tokenId: string;
  /** The organization's region: its groups and its audit trail. */
  region: RegionContext;
  /** The organization's allowed e-mail domains (none: any), read with the token. */
  allowedDomains: string[];
  /** The SCIM endpoint's address; resource locations derive from it. */
  baseUrl: string;
}

export function scimActor(context: ScimContext): AuditActor {
  return { type: 'scim', id: context.tokenId };
}

/** The SCIM 2.0 base address of a deployment, given to identity providers with their token. */
export function scimBaseUrl(publicUrl: string): string {
  return `${publicUrl}/scim/v2`;
}
