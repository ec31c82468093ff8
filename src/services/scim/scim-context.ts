import type { InTransaction } from '../../adapters/db/database.js';
import type { AuditActor, AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { GroupRepository } from '../../adapters/db/repositories/group-repository.js';
import type { ScimGroupRepository } from '../../adapters/db/repositories/scim-group-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';

/** What SCIM reads and writes in an organization's region. */
export interface ScimRegion {
  /** The group rows themselves, as the regional API writes them. */
  groups: GroupRepository;
  /** What only SCIM reads and writes of groups: its visible groups, members in batches, a person's place. */
  scimGroups: ScimGroupRepository;
  audit: AuditRepository;
  transaction: InTransaction<RegionalSchema>;
}

/** Who calls the SCIM surface: an organization's identity provider, known by its token. */
export interface ScimContext {
  orgId: string;
  tokenId: string;
  /** The organization's region: its groups and its audit trail. */
  region: ScimRegion;
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
