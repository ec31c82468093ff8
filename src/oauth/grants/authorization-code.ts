import { hashToken } from '../../crypto/secrets.js';
import { parseScopeString } from '../../domain/access/scopes.js';
import { isCodeVerifier, s256Challenge } from '../../domain/oauth/authorization-request.js';
import { OAuthError } from '../oauth-error.js';
import type { GrantContext, TokenSet } from '../token-endpoint.js';
import { revokeGrant } from './revoke-grant.js';

/**
 * grant_type=authorization_code (RFC 6749 section 4.1.3 with RFC 7636). The client is already
 * authenticated: its secret exactly when it has one, none for a public client. Every refusal
 * about the code itself is invalid_grant with one message, so codes cannot be probed.
 */
export async function authorizationCodeGrant(context: GrantContext): Promise<TokenSet> {
  const { application, form, tokens, clock, principals } = context;
  if (application.flow !== 'authorization-code') {
    throw new OAuthError('unauthorized_client', 'This application may not use the authorization_code grant');
  }
  const { code, redirect_uri: redirectUri, code_verifier: verifier } = form;
  if (!code) throw new OAuthError('invalid_request', 'code is required');
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required');
  if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required');
  if (!isCodeVerifier(verifier)) {
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~"');
  }

  const codeHash = hashToken(code);
  const row = await tokens.findAuthorizationCode(codeHash);
  const invalid = new OAuthError('invalid_grant', 'The authorization code is invalid, expired or already used');
  // A code issued to another client is refused without touching it (code injection, RFC 9700 4.5).
  if (!row || row.client_id !== application.client_id) throw invalid;
  const at = clock.now();
  const now = at.toISOString();
  if (row.used_at !== null) {
    // RFC 6749 section 4.1.2: a code used twice was probably stolen; revoke what the first use issued.
    await revokeGrant(context, row.family_id, row.client_id, at);
    throw invalid;
  }
  if (row.expires_at <= now) throw invalid;
  if (row.redirect_uri !== redirectUri) throw invalid;
  if (s256Challenge(verifier) !== row.code_challenge) throw invalid;
  if (!(await tokens.consumeAuthorizationCode(codeHash, now))) {
    await revokeGrant(context, row.family_id, row.client_id, at);
    throw invalid;
  }

  if (!(await principals.isActiveIn(row.user_id, row.org_id))) throw invalid;
  return context.issueTokens(
    {
      userId: row.user_id,
      orgId: row.org_id,
      clientId: row.client_id,
      scopes: parseScopeString(row.scopes),
      identityProvider: row.identity_provider,
    },
    row.family_id,
  );
}
