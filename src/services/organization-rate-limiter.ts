import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { LimiterStore } from '../adapters/limits/limiter-store.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../ports/clock.js';

/** How long an organization's bucket settings are kept: a change reaches every process this quickly. */
const LIMITS_TTL_MS = 5000;
const MAX_CACHED_ORGANIZATIONS = 50_000;

export interface BucketLimits {
  bucket: number;
  refillPerSecond: number;
}

/** What a request learns from its bucket: the RateLimit-* headers, and whether it may go on. */
export interface BucketState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
}

/**
 * The token bucket of B requests refilling R per second, on rate-limiter-flexible's counters:
 * B points per window of B / R seconds (rounded, at least 1 s, as Redis expiries are whole
 * seconds). A burst of B is served at once, the long-run rate is B per window, about R per
 * second, and the bucket refills whole when the window ends rather than a token at a time: the
 * window is never longer than the time an empty token bucket takes to fill.
 */
export function bucketWindow(limits: BucketLimits): { points: number; durationSeconds: number } {
  return { points: limits.bucket, durationSeconds: Math.max(1, Math.round(limits.bucket / limits.refillPerSecond)) };
}

/** Reads an organization's own bucket settings; nulls take the defaults. */
export type LimitsSource = (orgId: string) => Promise<{ bucket: number | null; refillPerSecond: number | null } | undefined>;

/**
 * One request bucket per organization on the resource APIs. Each organization's settings are
 * cached for a few seconds, so a request costs no database read; the counters live in the
 * limiter store (memory, or Redis shared by every API process).
 */
export class OrganizationRateLimiter {
  private readonly limits = new Map<string, { limits: BucketLimits; readAt: number }>();
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly store: LimiterStore,
    private readonly source: LimitsSource,
    private readonly defaults: Config['rateLimit'],
    private readonly clock: Pick<Clock, 'now'> = { now: () => new Date() },
  ) {}

  async take(orgId: string): Promise<BucketState> {
    const limits = this.cachedLimits(orgId) ?? (await this.readLimits(orgId));
    const { points, durationSeconds } = bucketWindow(limits);
    let limiter = this.limiters.get(`${points}/${durationSeconds}`);
    if (!limiter) {
      // The settings are part of the namespace: a change starts the organization on a fresh bucket.
      limiter = this.store.limiter(`rate:${points}:${durationSeconds}`, points, durationSeconds);
      this.limiters.set(`${points}/${durationSeconds}`, limiter);
    }
    try {
      return state(await limiter.consume(orgId), points, true);
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      return state(rejection as RateLimiterRes, points, false);
    }
  }

  private cachedLimits(orgId: string): BucketLimits | undefined {
    const cached = this.limits.get(orgId);
    return cached && this.clock.now().getTime() - cached.readAt < LIMITS_TTL_MS ? cached.limits : undefined;
  }

  private async readLimits(orgId: string): Promise<BucketLimits> {
    const own = await this.source(orgId);
    const limits = {
      bucket: own?.bucket ?? this.defaults.bucket,
      refillPerSecond: own?.refillPerSecond ?? this.defaults.refillPerSecond,
    };
    if (this.limits.size >= MAX_CACHED_ORGANIZATIONS) this.limits.clear();
    this.limits.set(orgId, { limits, readAt: this.clock.now().getTime() });
    return limits;
  }
}

function state(result: RateLimiterRes, limit: number, allowed: boolean): BucketState {
  return {
    allowed,
    limit,
    remaining: Math.max(0, result.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}
