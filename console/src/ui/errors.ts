import { RdpApiError } from '@reality-data-platform/sdk/browser';

/**
 * An error in words for the person: the platform's message (written for people) with what the
 * status means when there is none, and the request id to quote to an operator.
 */
export function describeError(error: unknown): string {
  if (error instanceof RdpApiError) {
    const message = error.body.message ?? error.body.error_description ?? STATUS_WORDS[error.status] ?? error.error;
    const request = error.requestId ? ` (request ${error.requestId})` : '';
    return `${message}${request}`;
  }
  if (error instanceof TypeError) return 'The platform could not be reached. Check the connection and try again.';
  return error instanceof Error ? error.message : String(error);
}

const STATUS_WORDS: Record<number, string> = {
  401: 'Your sign-in has ended. Sign in again.',
  403: 'You are not allowed to do this here.',
  404: 'It does not exist, or was deleted.',
  409: 'It conflicts with the current state.',
  413: 'It is too large.',
  429: 'Too many requests right now. Wait a moment and try again.',
  503: 'The platform is busy or restarting. Try again shortly.',
};
