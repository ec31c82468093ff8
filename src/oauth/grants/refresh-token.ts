import type { RefreshTokenRow } from '../../adapters/db/schema.js';
import { normalizeScopes, parseScopeString } from '../../domain/access/scopes.js';
import type { Platform } from '../../platform.js';
import { OAuthError } from '../oauth-error.js';
import { hashToken } from '../secrets.js';
import type { GrantContext, TokenSet } from '../token-endpoint.js';

const INVALID = 'The refresh token is invalid, expired or revoked';

/**
 * A used token presented again. Within the grace period it is taken as a retry whose response
 * was lost; otherwise it was probably stolen, and the whole family is revoked (RFC 9700 4.14.2).
 */
async function reuse(platform: Platform, row: RefreshTokenRow, now: Date): Promise<void> {
  const graceMs = platform.config.refreshReuseGraceSeconds * 1000;
  const usedAt = row.used_at ? Date.parse(row.used_at) : now.getTime();
  if (graceMs > 0 && now.getTime() - usedAt <= graceMs) return;
  await platform.tokens.revokeFamily(row.family_id, now.toISOString());
  throw new OAuthError('invalid_grant', INVALID);
}

/** The scopes of the new tokens: a `scope` parameter may only narrow them (RFC 6749 section 6). */
function narrowedScopes(row: RefreshTokenRow, applicationScopes: string[], requested: string | undefined): string[] {
  // An application that lost a scope since the grant no longer gets it.
  const granted = parseScopeString(row.scopes).filter((scope) => applicationScopes.includes(scope));
  if (granted.length === 0) throw new OAuthError('invalid_grant', 'The application no longer has any of the granted scopes');
  if (requested === undefined) return granted;
  const { scopes, unknown } = normalizeScopes(parseScopeString(requested));
  const outside = [...unknown, ...scopes.filter((scope) => !granted.includes(scope))];
  if (outside.length > 0) throw new OAuthError('invalid_scope', `A refresh cannot add scopes: ${outside.join(' ')}`);
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'scope names no scope');
  return scopes;
}

/** grant_type=refresh_token with rotation: each use issues a new token of the family and retires the old one. */
export async function refreshTokenGrant(context: GrantContext): Promise<TokenSet> {
  const { application, form, platform } = context;
  const presented = form.refresh_token;
  if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');

  const now = platform.clock.now();
  const row = await platform.tokens.findRefreshToken(hashToken(presented));
  // Another client's token is refused without effect: it cannot revoke the owner's family.
  if (!row || row.client_id !== application.client_id) throw new OAuthError('invalid_grant', INVALID);
  if (row.revoked_at !== null || row.expires_at <= now.toISOString()) throw new OAuthError('invalid_grant', INVALID);
  // Reuse is judged first, so a replay is detected whatever else the request gets wrong.
  if (row.used_at !== null) await reuse(platform, row, now);
  const scopes = narrowedScopes(row, parseScopeString(application.scopes), form.scope);
  if (row.used_at === null && !(await platform.tokens.markRefreshTokenUsed(row.id, now.toISOString()))) {
    // Two requests raced with one token: the loser is a reuse, judged by the winner's time.
    const current = await platform.tokens.findRefreshToken(row.token_hash);
    await reuse(platform, current ?? row, now);
  }

  const user = await platform.directory.findUser(row.user_id);
  if (!user || user.deactivated_at !== null) throw new OAuthError('invalid_grant', INVALID);
  return context.issueTokens(
    { userId: row.user_id, orgId: row.org_id, clientId: row.client_id, scopes, identityProvider: row.identity_provider },
    row.family_id,
  );
}
