import type { ScimTokenRepository } from '../../adapters/db/repositories/scim-token-repository.js';
import { hashToken } from '../../crypto/secrets.js';
import { allowedDomains } from '../../domain/people/invitation-rules.js';
import type { Region } from '../../domain/regions.js';
import { ScimError } from '../../domain/scim/scim-error.js';
import type { Clock } from '../../ports/clock.js';
import type { ScimContext, ScimRegion } from './scim-context.js';

export interface ScimAuthenticatorOptions {
  clock: Clock;
  tokens: Pick<ScimTokenRepository, 'findWithOrganization' | 'touch'>;
  /** The organization's region (421 RegionNotServed for one this process did not open). */
  regionOf(region: Region): ScimRegion;
  /** The SCIM endpoint's address (scimBaseUrl). */
  baseUrl: string;
}

/** last_used_at is written at most this often per token: not one write per SCIM request. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * The identity provider behind a SCIM request's Authorization header. A deleted token stops at
 * once: every request looks its hash up, with its organization, in one global query.
 */
export class ScimAuthenticator {
  private readonly clock: Clock;
  private readonly tokens: Pick<ScimTokenRepository, 'findWithOrganization' | 'touch'>;
  private readonly regionOf: (region: Region) => ScimRegion;
  private readonly baseUrl: string;

  constructor(options: ScimAuthenticatorOptions) {
    this.clock = options.clock;
    this.tokens = options.tokens;
    this.regionOf = options.regionOf;
    this.baseUrl = options.baseUrl;
  }

  /** The caller's context, or a 401 SCIM error. */
  async authenticate(authorization: string | undefined): Promise<ScimContext> {
    const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization ?? '');
    const row = match ? await this.tokens.findWithOrganization(hashToken(match[1] as string)) : undefined;
    if (!row) throw new ScimError(401, 'A valid SCIM bearer token is required');
    const now = this.clock.now();
    if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_PRECISION_MS) {
      await this.tokens.touch(row.id, now.toISOString());
    }
    return {
      orgId: row.org_id,
      tokenId: row.id,
      region: this.regionOf(row.region as Region),
      allowedDomains: allowedDomains(row.email_domains),
      baseUrl: this.baseUrl,
    };
  }
}
