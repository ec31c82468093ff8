/**
 * @reality-data-platform/sdk: the typed client of the Reality Data Platform. The public API;
 * packages/sdk/README.md walks through it. What runs in a web page too is in browser.ts; this
 * entry adds what needs Node.js: the loopback sign-in, PKCE with node:crypto, client
 * credentials, uploads from files, processing helpers and webhook verification.
 */
export * from './browser.js';
export {
  type LoopbackOptions,
  type LoopbackRedirect,
  listenForRedirect,
  type SignInOptions,
  signInWithBrowser,
} from './loopback.js';
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
export { ClientCredentials, type ClientCredentialsOptions } from './tokens.js';
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
