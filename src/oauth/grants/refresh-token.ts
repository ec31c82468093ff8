import type { RefreshTokenUseRow } from '../../adapters/db/schema.js';
import { hashToken } from '../../crypto/secrets.js';
import { normalizeScopes, parseScopeString } from '../../domain/access/scopes.js';
import { isRevoked, notBeforeMs } from '../../domain/oauth/revocation.js';
import { OAuthError } from '../oauth-error.js';
import { openRefreshToken, type RefreshTokenClaims } from '../refresh-tokens.js';
import type { GrantContext, GrantStores, TokenSet } from '../token-endpoint.js';
import { revokeGrant } from './revoke-grant.js';

const INVALID = 'The refresh token is invalid, expired or revoked';

/**
 * A used token presented again. Within the grace period it is taken as a retry whose response
 * was lost; otherwise it was probably stolen, and the whole family is revoked (RFC 9700 4.14.2).
 */
async function reuse(grants: GrantStores, claims: RefreshTokenClaims, use: RefreshTokenUseRow | undefined, now: Date) {
  const graceMs = grants.refreshReuseGraceSeconds * 1000;
  const usedAt = use ? Date.parse(use.used_at) : now.getTime();
  if (graceMs > 0 && now.getTime() - usedAt <= graceMs) return;
  await revokeGrant(grants, claims.familyId, claims.clientId, now);
  throw new OAuthError('invalid_grant', INVALID);
}

/** The scopes of the new tokens: a `scope` parameter may only narrow them (RFC 6749 section 6). */
function narrowedScopes(claims: RefreshTokenClaims, applicationScopes: string[], requested: string | undefined): string[] {
  // An application that lost a scope since the grant no longer gets it.
  const granted = claims.scopes.filter((scope) => applicationScopes.includes(scope));
  if (granted.length === 0) throw new OAuthError('invalid_grant', 'The application no longer has any of the granted scopes');
  if (requested === undefined) return granted;
  const { scopes, unknown } = normalizeScopes(parseScopeString(requested));
  const outside = [...unknown, ...scopes.filter((scope) => !granted.includes(scope))];
  if (outside.length > 0) throw new OAuthError('invalid_scope', `A refresh cannot add scopes: ${outside.join(' ')}`);
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'scope names no scope');
  return scopes;
}

/**
 * grant_type=refresh_token with rotation: each use issues a new token of the family and retires
 * the old one. The token is sealed (refresh-tokens.ts); the store holds what happened to it:
 * its use, its family's revocation, and the application's grants_not_before.
 */
export async function refreshTokenGrant(context: GrantContext): Promise<TokenSet> {
  const { application, form, tokens, principals } = context;
  const presented = form.refresh_token;
  if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');

  const now = context.clock.now();
  const claims = openRefreshToken(context.refreshTokenKey, presented);
  // Another client's token is refused without effect: it cannot revoke the owner's family.
  if (!claims || claims.clientId !== application.client_id) throw new OAuthError('invalid_grant', INVALID);
  if (claims.expiresAtMs <= now.getTime()) throw new OAuthError('invalid_grant', INVALID);
  // The user must still be active in the organization, and the token younger than its last
  // deactivation there and the application's "not before"; its family not revoked.
  const [familyRevoked, status] = await Promise.all([
    tokens.familyRevoked(claims.familyId),
    principals.principalStatus(claims.userId, claims.orgId),
  ]);
  const facts = {
    active: status?.active ?? false,
    userNotBefore: notBeforeMs(status?.tokensNotBefore),
    appNotBefore: notBeforeMs(application.grants_not_before),
    familyRevoked,
  };
  if (isRevoked(claims.issuedAtMs, facts)) throw new OAuthError('invalid_grant', INVALID);

  const tokenHash = hashToken(presented);
  // Reuse is judged first, so a replay is detected whatever else the request gets wrong.
  const earlierUse = await tokens.findRefreshTokenUse(tokenHash);
  if (earlierUse) await reuse(context, claims, earlierUse, now);
  const scopes = narrowedScopes(claims, parseScopeString(application.scopes), form.scope);
  if (!earlierUse) {
    const recorded = await tokens.recordRefreshTokenUse({
      token_hash: tokenHash,
      family_id: claims.familyId,
      client_id: claims.clientId,
      used_at: now.toISOString(),
      expires_at: new Date(claims.expiresAtMs).toISOString(),
    });
    // Two requests raced with one token: the loser is a reuse, judged by the winner's time.
    if (!recorded) await reuse(context, claims, await tokens.findRefreshTokenUse(tokenHash), now);
  }

  return context.issueTokens(
    {
      userId: claims.userId,
      orgId: claims.orgId,
      clientId: claims.clientId,
      scopes,
      identityProvider: claims.identityProvider,
    },
    claims.familyId,
  );
}
