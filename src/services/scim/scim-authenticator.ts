import { ScimTokenRepository } from '../../adapters/db/repositories/scim-token-repository.js';
import { hashToken } from '../../crypto/secrets.js';
import { allowedDomains } from '../../domain/people/invitation-rules.js';
import type { Region } from '../../domain/regions.js';
import { ScimError } from '../../domain/scim/scim-error.js';
import type { Platform } from '../../platform.js';
import { type ScimContext, scimBaseUrl } from './scim-context.js';

/** last_used_at is written at most this often per token: not one write per SCIM request. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * The identity provider behind a SCIM request's Authorization header. A deleted token stops at
 * once: every request looks its hash up, with its organization, in one global query.
 */
export class ScimAuthenticator {
  private readonly tokens: ScimTokenRepository;

  constructor(private readonly platform: Platform) {
    this.tokens = new ScimTokenRepository(platform.stores.global.db);
  }

  /** The caller's context, or a 401 SCIM error. */
  async authenticate(authorization: string | undefined): Promise<ScimContext> {
    const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization ?? '');
    const row = match ? await this.tokens.findWithOrganization(hashToken(match[1] as string)) : undefined;
    if (!row) throw new ScimError(401, 'A valid SCIM bearer token is required');
    const now = this.platform.clock.now();
    if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_PRECISION_MS) {
      await this.tokens.touch(row.id, now.toISOString());
    }
    return {
      orgId: row.org_id,
      tokenId: row.id,
      region: this.platform.region(row.region as Region),
      allowedDomains: allowedDomains(row.email_domains),
      baseUrl: scimBaseUrl(this.platform.config.publicUrl),
    };
  }
}
