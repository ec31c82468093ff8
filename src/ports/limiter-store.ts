import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { BucketLimits, BucketState } from '../domain/limits/token-bucket.js';

/** Token buckets by key: in this process, or in Redis for every process of a deployment. */
export interface TokenBuckets {
  take(key: string, limits: BucketLimits): Promise<BucketState>;
}

/**
 * Where the request buckets and the counters of rate-limiter-flexible live: this process's memory
 * (the embedded default) or Redis (RDP_REDIS_URL), so that every API process of a deployment
 * draws on the same ones.
 */
export interface LimiterStore {
  /** Token buckets: the organizations' request budgets. */
  buckets: TokenBuckets;
  /** A fixed-window counter of `points` per `durationSeconds`, under its own key namespace (failed sign-ins). */
  limiter(namespace: string, points: number, durationSeconds: number): RateLimiterAbstract;
  readonly shared: boolean;
  /** Rejects when the store does not answer (Redis down): what readiness asks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
