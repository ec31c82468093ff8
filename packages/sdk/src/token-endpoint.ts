import { errorFromResponse } from './errors.js';

/**
 * Tokens as the CLI or an integration stores them: plain JSON. Times are milliseconds since the
 * epoch; an unknown lifetime is left out (the token is then used until a 401).
 */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** When the access token expires. */
  accessTokenExpiresAt?: number;
  /** When the refresh token expires. */
  refreshTokenExpiresAt?: number;
  /** The scopes granted, when the server named them. */
  scopes?: string[];
  /** When the token endpoint answered them: a short-lived token's renewal margin is a share of its lifetime. */
  obtainedAt?: number;
}

export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** The token endpoint's answer: both spellings the spec shows (access_token and accessToken). */
interface TokenResponse {
  access_token?: string;
  accessToken?: string;
  refresh_token?: string;
  refreshToken?: string;
  /** The spec's snake_case expires_in describes the refresh token. */
  expires_in?: number;
  /** The camelCase expiresIn is the access token's lifetime. */
  expiresIn?: number;
  scope?: string;
}

/** `{authUrl}/oauth/token` without a doubled slash. */
export function authEndpoint(authUrl: string, path: string): string {
  return `${authUrl.replace(/\/+$/, '')}${path}`;
}

export function basicAuthorization(clientId: string, clientSecret: string): string {
  // RFC 6749 section 2.3.1: form-encode both before joining them.
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${base64(new TextEncoder().encode(`${encode(clientId)}:${encode(clientSecret)}`))}`;
}

/**
 * POSTs a grant to `{authUrl}/oauth/token` and reads the answer into a TokenSet. A refusal
 * throws RdpApiError (401 invalid_client for wrong credentials, 400 invalid_grant for a used or
 * expired code or refresh token).
 */
export async function requestToken(
  authUrl: string,
  form: Record<string, string>,
  options: { clientId: string; clientSecret?: string; fetch?: FetchLike; now?: () => number },
): Promise<TokenSet> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  const body = new URLSearchParams(form);
  if (options.clientSecret !== undefined) headers.authorization = basicAuthorization(options.clientId, options.clientSecret);
  else body.set('client_id', options.clientId);
  const doFetch = options.fetch ?? fetch;
  const response = await doFetch(authEndpoint(authUrl, '/oauth/token'), { method: 'POST', headers, body });
  if (!response.ok) throw await errorFromResponse(response);
  const answer = (await response.json()) as TokenResponse;
  return toTokenSet(answer, (options.now ?? Date.now)());
}

function toTokenSet(answer: TokenResponse, now: number): TokenSet {
  const accessToken = answer.access_token ?? answer.accessToken;
  if (!accessToken) throw new Error('The token endpoint answered no access token');
  const tokens: TokenSet = { accessToken, obtainedAt: now };
  const refreshToken = answer.refresh_token ?? answer.refreshToken;
  if (refreshToken) tokens.refreshToken = refreshToken;
  const accessExpiresAt = typeof answer.expiresIn === 'number' ? now + answer.expiresIn * 1000 : jwtExpiry(accessToken);
  if (accessExpiresAt !== undefined) tokens.accessTokenExpiresAt = accessExpiresAt;
  if (refreshToken && typeof answer.expires_in === 'number') tokens.refreshTokenExpiresAt = now + answer.expires_in * 1000;
  if (answer.scope) tokens.scopes = answer.scope.split(' ').filter(Boolean);
  return tokens;
}

/** The exp of a JWT access token in milliseconds, when it is one; the token is not verified (the server does). */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Base64 of bytes with what both Node.js and browsers have (the SDK's browser entry runs in pages). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
