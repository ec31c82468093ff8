import createClient, { type Client } from 'openapi-fetch';
import { type AuthorizedFetchOptions, authorizedFetch } from './authorized-fetch.js';
import { type ApiInfo, getApiInfo } from './discovery.js';
import { errorFromBody } from './errors.js';
import type { components, operations, paths } from './generated/openapi.js';
import type { FetchLike } from './token-endpoint.js';
import type { TokenSource } from './tokens.js';

/** The typed client of the regional API: `api.GET('/v1/nodes/{nodeId}/browse', { params: ... })`. */
export type ApiClient = Client<paths>;
export type { components, operations, paths };

/** A schema of openapi.json by name: `Schema<'Node'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface ApiClientOptions extends AuthorizedFetchOptions {
  /** The region's base address: the apiUrl of discovery. */
  apiUrl: string;
  tokens: TokenSource;
  fetch?: FetchLike;
}

/** A typed client of one region's API that authorizes every call and refreshes once on 401. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const send = authorizedFetch(options.tokens, options.fetch, options);
  return createClient<paths>({ baseUrl: options.apiUrl.replace(/\/+$/, ''), fetch: (request) => send(request) });
}

export interface ConnectOptions extends AuthorizedFetchOptions {
  /** The authorization server's address, e.g. `https://rdp.example.com/auth`. */
  authUrl: string;
  tokens: TokenSource;
  /** Use this base address instead of the apiUrl of discovery (a proxy in between). */
  apiUrl?: string;
  fetch?: FetchLike;
}

/** A connected SDK: discovery done, the typed API on the organization's region. */
export interface RdpClient {
  /** The typed regional API (openapi-fetch). */
  api: ApiClient;
  /** The discovery answer: user, organization, scopes, apiUrl. */
  apiInfo: ApiInfo;
  /** The region's base address the API calls go to. */
  apiUrl: string;
  authUrl: string;
  /** The organization's id: the root node to browse. */
  organizationId: string;
  tokens: TokenSource;
  /** fetch with the bearer token and the 401 refresh, for addresses outside openapi.json (content URLs, tiles). */
  fetch: (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
}

/** Discovery (`GET {authUrl}/oauth/api-info`) then the typed client on the apiUrl it names. */
export async function connect(options: ConnectOptions): Promise<RdpClient> {
  const send = authorizedFetch(options.tokens, options.fetch, options);
  const apiInfo = await getApiInfo(options.authUrl, send);
  const apiUrl = options.apiUrl ?? apiInfo.apiUrl;
  return {
    api: createApiClient({ ...options, apiUrl }),
    apiInfo,
    apiUrl,
    authUrl: options.authUrl,
    organizationId: apiInfo.organization.id,
    tokens: options.tokens,
    fetch: send,
  };
}

/** What every openapi-fetch call answers. */
export interface ApiResult<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/**
 * The data of a call, or an RdpApiError carrying the platform's error body:
 * `const site = await ok(api.POST('/v1/nodes/{parentId}/site', {...}))`.
 */
export async function ok<Data>(call: Promise<ApiResult<Data>> | ApiResult<Data>): Promise<Data> {
  const result = await call;
  if (!result.response.ok) throw errorFromBody(result.response, result.error);
  return result.data as Data;
}
