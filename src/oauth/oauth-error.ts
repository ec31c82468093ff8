/** RFC 6749 section 5.2 errors of the token endpoint, with the spec's statuses. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  /** Not RFC 6749: too many failed client authentications (429 with Retry-After; docs/oauth-browser-flows.md). */
  | 'rate_limited';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : error === 'rate_limited' ? 429 : 400,
    /** Sent as Retry-After with a 429. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }

  /** The RFC body, plus the platform's hasError and error-shape fields so either kind of client copes. */
  toBody() {
    return {
      hasError: true,
      error: this.error,
      error_description: this.description,
      statusCode: this.status,
      message: this.description,
    };
  }
}
