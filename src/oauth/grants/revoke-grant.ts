import type { GrantStores } from '../token-endpoint.js';

/**
 * Ends a grant (refresh family). The record is kept as long as a token of the family could
 * still be presented: its newest refresh token expires at most one refresh lifetime from now.
 */
export async function revokeGrant(
  grants: Pick<GrantStores, 'tokens' | 'refreshTokenTtlSeconds'>,
  familyId: string,
  clientId: string,
  now: Date,
): Promise<void> {
  const expiresAt = new Date(now.getTime() + grants.refreshTokenTtlSeconds * 1000);
  await grants.tokens.revokeFamily({
    family_id: familyId,
    client_id: clientId,
    revoked_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
  });
}
