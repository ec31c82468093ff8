import { createHash, randomBytes } from 'node:crypto';
import { authEndpoint, type FetchLike, requestToken, type TokenSet } from './token-endpoint.js';

/** The values a client makes before it sends the user to the consent page. */
export interface PkceRequest {
  /** 43 base64url characters (32 random bytes): kept by the client until the exchange. */
  verifier: string;
  /** base64url(SHA-256(verifier)), no padding: sent with the authorization request. */
  challenge: string;
  /** Random; the redirect must carry it back unchanged. */
  state: string;
}

export function createPkce(): PkceRequest {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier), state: randomBytes(16).toString('base64url') };
}

/** The S256 code challenge of a verifier (RFC 7636 section 4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export interface AuthorizationUrlOptions {
  authUrl: string;
  clientId: string;
  /** The registered redirect URI, exactly (or a loopback one for a native application). */
  redirectUri: string;
  scopes: string[];
  pkce: PkceRequest;
}

/** The consent page's address (`{authUrl}/consent`) with the spec's parameters: `scopes` once per scope. */
export function authorizationUrl(options: AuthorizationUrlOptions): string {
  const query = new URLSearchParams({
    response_type: 'code',
    code_challenge_method: 'S256',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    code_challenge: options.pkce.challenge,
    state: options.pkce.state,
  });
  for (const scope of options.scopes) query.append('scopes', scope);
  return `${authEndpoint(options.authUrl, '/consent')}?${query}`;
}

/** The user denied access, or the server refused the request, on the redirect (error=access_denied...). */
export class AuthorizationDeniedError extends Error {
  override readonly name = 'AuthorizationDeniedError';
  constructor(
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(description ? `${error}: ${description}` : error);
  }
}

/**
 * The code of the redirect the browser came back with, after checking its state. Throws
 * AuthorizationDeniedError when it carries an error, and Error when the state differs (a forged
 * or stale redirect: never exchange its code).
 */
export function codeFromRedirect(redirect: string | URL, expectedState: string): string {
  const params = new URL(redirect).searchParams;
  if (params.get('state') !== expectedState) throw new Error('The redirect carries another state than this sign-in sent');
  const error = params.get('error');
  if (error) throw new AuthorizationDeniedError(error, params.get('error_description') ?? undefined);
  const code = params.get('code');
  if (!code) throw new Error('The redirect carries no code');
  return code;
}

export interface CodeExchangeOptions {
  authUrl: string;
  clientId: string;
  /** Only when the application was created with one. */
  clientSecret?: string;
  code: string;
  redirectUri: string;
  /** The PKCE verifier whose challenge went with the authorization request. */
  verifier: string;
  fetch?: FetchLike;
  now?: () => number;
}

/** Step 2 of the flow: the code (valid 60 seconds, once) for an access and a refresh token. */
export function exchangeCode(options: CodeExchangeOptions): Promise<TokenSet> {
  return requestToken(
    options.authUrl,
    {
      grant_type: 'authorization_code',
      code: options.code,
      redirect_uri: options.redirectUri,
      code_verifier: options.verifier,
    },
    options,
  );
}
