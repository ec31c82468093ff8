import { requestToken, type TokenSet } from '@reality-data-platform/sdk/browser';
import type { ConsoleConfig } from '../config.js';

/** What survives the round trip to the sign-in pages, in this tab only. */
const PENDING_KEY = 'rdp-console-pending-sign-in';

interface PendingSignIn {
  state: string;
  verifier: string;
  /** The console path to return to once signed in. */
  returnTo: string;
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(bytes = 32): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** RFC 7636 S256: the challenge is the unpadded base64url SHA-256 of the verifier. */
async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

/** Sends the browser to the consent page (which asks to sign in first when needed). */
export async function beginSignIn(config: ConsoleConfig, returnTo: string): Promise<void> {
  const pending: PendingSignIn = { state: randomText(16), verifier: randomText(48), returnTo };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(`${config.authUrl}/consent`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: config.scopes.join(' '),
    state: pending.state,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

export class SignInError extends Error {}

/**
 * On the callback address: checks the state against this tab's pending sign-in, exchanges the
 * code (a public client: client_id and the verifier, no secret) and answers the tokens and where
 * to go next.
 */
export async function finishSignIn(config: ConsoleConfig, callback: URL): Promise<{ tokens: TokenSet; returnTo: string }> {
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = stored ? (JSON.parse(stored) as PendingSignIn) : undefined;
  const error = callback.searchParams.get('error');
  if (error) {
    throw new SignInError(
      error === 'access_denied' ? 'You declined the console’s access.' : callback.searchParams.get('error_description') || error,
    );
  }
  if (!pending || callback.searchParams.get('state') !== pending.state) {
    throw new SignInError('This sign-in was not started in this tab, or has already been used. Sign in again.');
  }
  const code = callback.searchParams.get('code');
  if (!code) throw new SignInError('The sign-in answered no code. Sign in again.');
  const tokens = await requestToken(
    config.authUrl,
    { grant_type: 'authorization_code', code, redirect_uri: config.redirectUri, code_verifier: pending.verifier },
    { clientId: config.clientId },
  );
  return { tokens, returnTo: pending.returnTo };
}
