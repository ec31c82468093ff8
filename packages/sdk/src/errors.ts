/**
 * The platform's error body (the spec's shape): `error` is the code to branch on. The resource
 * API's bodies carry `statusCode` and `message`; the token endpoint's add the RFC 6749 fields.
 */
export interface ErrorBody {
  statusCode?: number;
  error: string;
  message?: string;
  error_description?: string;
  [field: string]: unknown;
}

/** A refusal from the platform: the HTTP status and the error body it answered. */
export class RdpApiError extends Error {
  override readonly name = 'RdpApiError';
  /** The HTTP status (400, 401, 403, 404, 409, 421, 429...). */
  readonly status: number;
  /** The error code of the body (ValidationError, FileAlreadyExists, invalid_grant...). */
  readonly error: string;
  /** The whole body as answered. */
  readonly body: ErrorBody;
  /** The request id the platform answered (X-Request-Id), for support. */
  readonly requestId: string | undefined;

  constructor(status: number, body: ErrorBody, requestId?: string) {
    super(`${status} ${body.error}: ${body.message ?? body.error_description ?? ''}`.trimEnd());
    this.status = status;
    this.error = body.error;
    this.body = body;
    this.requestId = requestId;
  }
}

/** Reads a refusal's body into an RdpApiError; a body that is not the platform's shape is kept as text. */
export async function errorFromResponse(response: Response): Promise<RdpApiError> {
  const text = await response.text().catch(() => '');
  return errorFromBody(response, text);
}

export function errorFromBody(response: Response, body: unknown): RdpApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
  }
  if (parsed && typeof parsed === 'object' && typeof (parsed as ErrorBody).error === 'string') {
    return new RdpApiError(response.status, parsed as ErrorBody, requestId);
  }
  const message = typeof body === 'string' && body ? body.slice(0, 500) : response.statusText;
  return new RdpApiError(response.status, { statusCode: response.status, error: `HTTP${response.status}`, message }, requestId);
}
