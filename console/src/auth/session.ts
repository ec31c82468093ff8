import {
  type ApiClient,
  type ApiInfo,
  authorizedFetch,
  createApiClient,
  getApiInfo,
  RefreshingTokens,
  type TokenSet,
} from '@reality-data-platform/sdk/browser';
import type { ConsoleConfig } from '../config.js';

/**
 * The tokens live in this tab's sessionStorage: a reload keeps the person signed in, another tab
 * signs in on its own, and closing the tab forgets them. The access token is short-lived; the
 * refresh token rotates on each use and is stored again before the new access token is used.
 */
const TOKENS_KEY = 'rdp-console-tokens';

export function storeTokens(tokens: TokenSet): void {
  sessionStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
}

function storedTokens(): TokenSet | undefined {
  const stored = sessionStorage.getItem(TOKENS_KEY);
  return stored ? (JSON.parse(stored) as TokenSet) : undefined;
}

/** A signed-in person: who they are (api-info), the typed API of their organization's region, and a fetch with their token. */
export interface ConsoleSession {
  info: ApiInfo;
  api: ApiClient;
  /** The region's API base, e.g. `https://host/eu/reality` (without /v1). */
  apiUrl: string;
  /** fetch with the bearer token, refreshed on 401: for calls outside the typed API (signed addresses need none). */
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  hasScope(scope: string): boolean;
  signOut(): void;
}

/** The session from this tab's stored tokens, or undefined when there are none or they no longer work. */
export async function openSession(config: ConsoleConfig): Promise<ConsoleSession | undefined> {
  const tokens = storedTokens();
  if (!tokens) return undefined;
  const source = new RefreshingTokens({ authUrl: config.authUrl, clientId: config.clientId, tokens, onTokens: storeTokens });
  const fetchWithToken = authorizedFetch(source);
  let info: ApiInfo;
  try {
    info = await getApiInfo(config.authUrl, fetchWithToken);
  } catch {
    // Expired or revoked (the refresh was refused too): start again from the sign-in.
    sessionStorage.removeItem(TOKENS_KEY);
    return undefined;
  }
  const apiUrl = info.apiUrl.replace(/\/+$/, '');
  const scopes = new Set(info.scopes);
  return {
    info,
    apiUrl,
    api: createApiClient({ apiUrl, tokens: source }),
    fetch: (input, init) => fetchWithToken(input, init),
    hasScope: (scope) => scopes.has(scope),
    signOut() {
      // The tab forgets its tokens; the sign-in pages' own session ends on their sign-out form.
      sessionStorage.removeItem(TOKENS_KEY);
    },
  };
}
