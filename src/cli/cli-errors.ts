/** Exit statuses of `rdp` (README): 0 done, 1 refused, 2 usage. */
export const EXIT = { done: 0, refused: 1, usage: 2 } as const;

/** A command used wrongly (a missing or malformed option): exit 2. */
export class UsageError extends Error {}

/** A command that could not be done (the platform refused, no store, not signed in): exit 1. */
export class RefusedError extends Error {
  constructor(
    message: string,
    /** The error body to print as JSON with --json. */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export function required(value: string | undefined, name: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

/** The one line a failure prints: never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) {
    const message = error.message || (error as { code?: string }).code || error.name;
    // fetch says only "fetch failed"; the reason (connection refused, a name not found) is its cause.
    const cause = error.cause instanceof Error ? describeError(error.cause) : undefined;
    return cause && !message.includes(cause) ? `${message} (${cause})` : message;
  }
  return String(error);
}
