/**
 * @reality-data-platform/sdk: the typed client of the Reality Data Platform. The public API;
 * packages/sdk/README.md walks through it.
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
export {
  type LoopbackOptions,
  type LoopbackRedirect,
  listenForRedirect,
  type SignInOptions,
  signInWithBrowser,
} from './loopback.js';
export { collect, MAX_PAGE_SIZE, type PageRequest, type PaginateOptions, paginate } from './paging.js';
export {
  AuthorizationDeniedError,
  type AuthorizationUrlOptions,
  authorizationUrl,
  type CodeExchangeOptions,
  codeFromRedirect,
  createPkce,
  exchangeCode,
  type PkceRequest,
  pkceChallenge,
} from './pkce.js';
export { startProcessing, type WaitOptions, waitForProcessing } from './processing.js';
export { type FetchLike, jwtExpiry, requestToken, type TokenSet } from './token-endpoint.js';
export {
  ClientCredentials,
  type ClientCredentialsOptions,
  RefreshingTokens,
  type RefreshingTokensOptions,
  StaticToken,
  type TokenSource,
} from './tokens.js';
export {
  type FileUploadState,
  type PartUploadOptions,
  UploadExpiredError,
  type UploadPartTarget,
  type UploadProgress,
  type UploadSource,
  uploadEtag,
} from './upload-parts.js';
export {
  type BundleInputUpload,
  type HasApi,
  type SiteFileUpload,
  type UploadOptions,
  type UploadState,
  uploadBundleInput,
  uploadSiteFile,
} from './uploads.js';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
