/**
 * The token bucket of an organization's requests: it holds at most `bucket` tokens, gains
 * `refillPerSecond` tokens a second, and each request takes one. No I/O: the in-memory bucket
 * runs this, and the Redis bucket runs the same arithmetic as a script (limits/token-bucket.lua.ts).
 */
export interface BucketLimits {
  bucket: number;
  refillPerSecond: number;
}

export interface BucketLevel {
  tokens: number;
  /** When `tokens` was last computed, in milliseconds. */
  atMs: number;
}

/** What a request learns from its bucket: the RateLimit-* headers, and whether it may go on. */
export interface BucketState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again (RateLimit-Reset). */
  resetSeconds: number;
  /** Whole seconds until a token is there again (Retry-After of a refusal). */
  retryAfterSeconds: number;
}

/** Refills the bucket to `nowMs` and takes a token if there is one. */
export function takeToken(
  level: BucketLevel | undefined,
  limits: BucketLimits,
  nowMs: number,
): { level: BucketLevel; state: BucketState } {
  const elapsedMs = level ? Math.max(0, nowMs - level.atMs) : 0;
  const available = level ? Math.min(limits.bucket, level.tokens + (elapsedMs * limits.refillPerSecond) / 1000) : limits.bucket;
  const allowed = available >= 1;
  const tokens = allowed ? available - 1 : available;
  return { level: { tokens, atMs: nowMs }, state: bucketState(allowed, tokens, limits) };
}

export function bucketState(allowed: boolean, tokens: number, limits: BucketLimits): BucketState {
  return {
    allowed,
    limit: limits.bucket,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((limits.bucket - tokens) / limits.refillPerSecond),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / limits.refillPerSecond)),
  };
}

/** How long a bucket's state is worth keeping: once it would be full again, it can be forgotten. */
export function fillMilliseconds(limits: BucketLimits): number {
  return Math.ceil((limits.bucket / limits.refillPerSecond) * 1000);
}
