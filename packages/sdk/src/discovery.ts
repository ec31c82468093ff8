import { errorFromResponse } from './errors.js';
import { authEndpoint, type FetchLike } from './token-endpoint.js';

/**
 * The answer of `GET {authUrl}/oauth/api-info` (the spec's discovery). The authorization
 * server's operations are not in openapi/openapi.json (the regional API's document), so this
 * one shape is written here from the spec's table.
 */
export interface ApiInfo {
  user: { id: string; firstName: string; lastName: string; email: string };
  /** The organization the token acts in; its id is the node id of the organization to browse. */
  organization: { id: string; name: string };
  scopes: string[];
  issuedAt: string;
  expiresAt: string | null;
  /** The base address of the organization's region: every resource call goes there. */
  apiUrl: string;
}

/** Discovery with an authorized fetch (see authorizedFetch): the token's user, organization, scopes and apiUrl. */
export async function getApiInfo(authUrl: string, fetchWithToken: FetchLike): Promise<ApiInfo> {
  const response = await fetchWithToken(authEndpoint(authUrl, '/oauth/api-info'), { headers: { accept: 'application/json' } });
  if (!response.ok) throw await errorFromResponse(response);
  return (await response.json()) as ApiInfo;
}
