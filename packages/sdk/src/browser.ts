/**
 * The SDK's entry for web pages (`@reality-data-platform/sdk/browser`): what runs without
 * Node.js (no file system, no loopback server, no node:crypto). The platform's own console is
 * built on it; a browser PKCE sign-in uses WebCrypto (see the console's auth module).
 */
export { type AuthorizedFetchOptions, authorizedFetch } from './authorized-fetch.js';
export {
  type ApiClient,
  type ApiClientOptions,
  type ApiResult,
  type ConnectOptions,
  type components,
  connect,
  createApiClient,
  ok,
  type operations,
  type paths,
  type RdpClient,
  type Schema,
} from './client.js';
export { type ApiInfo, getApiInfo } from './discovery.js';
export { type ErrorBody, RdpApiError } from './errors.js';
export { collect, MAX_PAGE_SIZE, type PageRequest, type PaginateOptions, paginate } from './paging.js';
export { listPlaces, type Place } from './places.js';
export { authEndpoint, type FetchLike, jwtExpiry, requestToken, type TokenSet } from './token-endpoint.js';
export { RefreshingTokens, type RefreshingTokensOptions, StaticToken, type TokenSource } from './tokens.js';
