import { createHash } from 'node:crypto';
import { normalizeScopes, parseScopeString, type Scope } from '../access/scopes.js';

/**
 * The authorization request checks of docs/oauth-browser-flows.md, in their order. Pure: the
 * caller looks the application up and passes what it needs. A failure is shown on an error
 * page and never redirected, since the redirect URI may be the very thing that is wrong.
 */

/** What the checks need to know about the application named by client_id. */
export interface AuthorizationClient {
  clientId: string;
  flow: string;
  native: boolean;
  redirectUris: string[];
  scopes: string[];
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string;
  scopes: Scope[];
}

export type AuthorizationCheck = { ok: true; request: AuthorizationRequest } | { ok: false; reason: string };

/** base64url(SHA-256) of 32 bytes: exactly 43 characters, no padding. */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 section 4.1: unreserved characters, 43 to 128 of them. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const SINGLE_VALUED = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'scope'];
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::\d{1,5})?(\/[^?#]*)?$/;

/** A loopback URI without its port (RFC 8252 section 7.3: the port varies per run), or null. */
function loopbackWithoutPort(uri: string): string | null {
  const match = LOOPBACK.exec(uri);
  if (!match) return null;
  return `http://${match[1]}${match[2] ?? ''}`;
}

/** Exact, character-for-character matching; for native applications a loopback URI matches on any port. */
export function redirectUriMatches(client: Pick<AuthorizationClient, 'native' | 'redirectUris'>, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  if (!client.native) return false;
  const requested = loopbackWithoutPort(uri);
  return requested !== null && client.redirectUris.some((registered) => loopbackWithoutPort(registered) === requested);
}

/** The requested scopes: each `scopes` value (repeated once per scope), or a space-separated `scope`. */
function requestedScopes(query: URLSearchParams): string[] {
  return [...query.getAll('scopes'), ...query.getAll('scope')].flatMap(parseScopeString);
}

export function checkAuthorizationRequest(query: URLSearchParams, client: AuthorizationClient | undefined): AuthorizationCheck {
  const fail = (reason: string): AuthorizationCheck => ({ ok: false, reason });
  for (const name of SINGLE_VALUED) {
    if (query.getAll(name).length > 1) return fail(`The parameter ${name} is given more than once.`);
  }
  const clientId = query.get('client_id');
  if (!clientId) return fail('The request has no client_id.');
  if (!client || client.clientId !== clientId || client.flow !== 'authorization-code') {
    return fail('The client_id does not name an application that may use the authorization code flow.');
  }
  const redirectUri = query.get('redirect_uri');
  if (!redirectUri) return fail('The request has no redirect_uri.');
  if (!redirectUriMatches(client, redirectUri)) return fail('The redirect_uri is not registered for this application.');

  if (query.get('response_type') !== 'code') return fail('response_type must be code.');
  const method = query.get('code_challenge_method');
  if (method !== 'S256')
    return fail(
      method
        ? `code_challenge_method ${method} is not supported; use S256.`
        : 'PKCE is required: code_challenge_method must be S256.',
    );
  const codeChallenge = query.get('code_challenge') ?? '';
  if (!CODE_CHALLENGE.test(codeChallenge)) return fail('code_challenge must be 43 base64url characters (an S256 challenge).');
  const state = query.get('state');
  if (!state) return fail('The request has no state.');

  const { scopes, unknown } = normalizeScopes(requestedScopes(query));
  if (unknown.length > 0) return fail(`Unknown scopes: ${unknown.join(', ')}.`);
  if (scopes.length === 0) return fail('The request names no scopes.');
  const outside = scopes.filter((scope) => !client.scopes.includes(scope));
  if (outside.length > 0) return fail(`The application may not request these scopes: ${outside.join(', ')}.`);

  return { ok: true, request: { clientId, redirectUri, codeChallenge, state, scopes } };
}

export function isCodeVerifier(value: string): boolean {
  return CODE_VERIFIER.test(value);
}

/** RFC 7636 section 4.6: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
