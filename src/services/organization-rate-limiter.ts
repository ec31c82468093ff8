import type { Config } from '../config/config.js';
import type { BucketLimits, BucketState } from '../domain/limits/token-bucket.js';
import type { Clock } from '../ports/clock.js';
import type { TokenBuckets } from '../ports/limiter-store.js';

export type { BucketLimits, BucketState };

/** How long an organization's bucket settings are kept: a change reaches every process this quickly. */
const LIMITS_TTL_MS = 5000;
const MAX_CACHED_ORGANIZATIONS = 50_000;

/** Reads an organization's own bucket settings; nulls take the defaults. */
export type LimitsSource = (orgId: string) => Promise<{ bucket: number | null; refillPerSecond: number | null } | undefined>;

/**
 * One token bucket per organization on the resource APIs. Each organization's settings are
 * cached for a few seconds, so a request costs no database read; the buckets live in the
 * limiter store (memory, or Redis shared by every API process).
 */
export class OrganizationRateLimiter {
  private readonly limits = new Map<string, { limits: BucketLimits; readAt: number }>();

  constructor(
    private readonly buckets: TokenBuckets,
    private readonly source: LimitsSource,
    private readonly defaults: Config['rateLimit'],
    private readonly clock: Pick<Clock, 'now'> = { now: () => new Date() },
  ) {}

  async take(orgId: string): Promise<BucketState> {
    const limits = this.cachedLimits(orgId) ?? (await this.readLimits(orgId));
    return this.buckets.take(orgId, limits);
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
