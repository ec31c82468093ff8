/**
 * Why an input cannot be processed, in words a user can act on. `code` lets the worker map it:
 * `not-compatible` is the spec's FileNotCompatible (the content is not what it claims or not
 * a format we read), the others fail the processing job with the message as the reason.
 */
export type ProcessingErrorCode =
  | 'not-compatible'
  | 'unsupported-content'
  | 'video-limits'
  | 'no-reconstruction-processor'
  | 'reconstruction-failed'
  | 'tool-failed';

export class ProcessingError extends Error {
  constructor(
    readonly code: ProcessingErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ProcessingError';
  }
}

export function notCompatible(message: string): ProcessingError {
  return new ProcessingError('not-compatible', message);
}
