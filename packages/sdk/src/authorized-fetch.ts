import type { FetchLike } from './token-endpoint.js';
import type { TokenSource } from './tokens.js';

export interface AuthorizedFetchOptions {
  /**
   * How many times a call refused with 429 rate_limited is sent again after its Retry-After
   * (default 2; 0 answers the 429 as it is). A Retry-After above `maxRetryAfterSeconds` is not
   * waited for.
   */
  rateLimitRetries?: number;
  /** The longest Retry-After waited for (default 30 seconds). */
  maxRetryAfterSeconds?: number;
}

/**
 * A fetch that sends `Authorization: Bearer` from the token source and, on a 401, asks it for a
 * new token and sends the request once more (the spec: any 401 means request a new token). A
 * second 401 is answered as it is. A 429 (the organization's request budget is spent) is sent
 * again after its Retry-After, a few times. The request is cloned before each try, so its body
 * can be sent again.
 */
export function authorizedFetch(
  tokens: TokenSource,
  baseFetch: FetchLike = fetch,
  options: AuthorizedFetchOptions = {},
): (input: Request | string | URL, init?: RequestInit) => Promise<Response> {
  const retries = Math.max(0, options.rateLimitRetries ?? 2);
  const maxWaitSeconds = options.maxRetryAfterSeconds ?? 30;
  return async (input, init) => {
    const original = new Request(input, init);
    let refreshed = false;
    for (let rateLimited = 0; ; ) {
      const request = original.clone();
      const token = await tokens.getAccessToken();
      request.headers.set('authorization', `Bearer ${token}`);
      const response = await baseFetch(request);
      if (response.status === 401 && !refreshed) {
        // Drain the refused answer so its connection is reused.
        await response.arrayBuffer().catch(() => undefined);
        await tokens.refresh(token);
        refreshed = true;
        continue;
      }
      if (response.status === 429 && rateLimited < retries) {
        const wait = retryAfterSeconds(response.headers.get('retry-after'));
        if (wait !== undefined && wait <= maxWaitSeconds) {
          await response.arrayBuffer().catch(() => undefined);
          rateLimited += 1;
          await sleep(wait * 1000, original.signal);
          continue;
        }
      }
      return response;
    }
  };
}

/** Retry-After in seconds: a number, or an HTTP date. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
