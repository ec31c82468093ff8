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

/** The bucket a route spends: the organization's API budget, or its budget for tile reads. */
export type RateBudget = 'api' | 'tiles';

/**
 * Two token buckets per organization on the resource APIs: one for its requests, one for its
 * tile reads (docs/operations.md#rate-limits). The request bucket's settings are the
 * organization's own or the defaults, cached for a few seconds, so a request costs no database
 * read; the tile bucket's are the deployment's. The buckets live in the limiter store (memory,
 * or Redis shared by every API process).
 */
export class OrganizationRateLimiter {
  private readonly limits = new Map<string, { limits: BucketLimits; readAt: number }>();

  constructor(
    private readonly buckets: TokenBuckets,
    private readonly source: LimitsSource,
    private readonly defaults: Config['rateLimit'],
    private readonly clock: Pick<Clock, 'now'> = { now: () => new Date() },
  ) {}

  async take(orgId: string, budget: RateBudget = 'api'): Promise<BucketState> {
    // A key of its own: an organization id never starts with "tiles:".
    if (budget === 'tiles') return this.buckets.take(`tiles:${orgId}`, this.defaults.tiles);
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
