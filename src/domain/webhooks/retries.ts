/**
 * When a failed delivery is tried again: Standard Webhooks' schedule, the pause after attempt n
 * (1-based) being RETRY_DELAYS_MS[n - 1]. Eight attempts over about 27.5 hours; after the last
 * one fails the delivery is exhausted.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The pause before the next attempt after `attempt` attempts failed, or undefined when none is left. */
export function retryDelayMs(attempt: number): number | undefined {
  return RETRY_DELAYS_MS[attempt - 1];
}

/** Only 2xx is success. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** 410 Gone: the receiver says the endpoint is no more; the endpoint is disabled. */
export const GONE = 410;
