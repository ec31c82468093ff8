import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Config } from '../../config/config.js';
import type { LimiterStore } from '../../ports/limiter-store.js';
import { memoryTokenBuckets } from './token-buckets.js';

export function memoryLimiterStore(): LimiterStore {
  return {
    buckets: memoryTokenBuckets(),
    limiter: (namespace, points, duration) => new RateLimiterMemory({ keyPrefix: namespace, points, duration }),
    shared: false,
    ping: async () => {},
    close: async () => {},
  };
}

/** Redis's client is imported only when RDP_REDIS_URL is set (docs/performance.md#start-up-the-causes-of-7-s). */
export async function openLimiterStore(config: Config, onError: (error: Error) => void): Promise<LimiterStore> {
  if (!config.redisUrl) return memoryLimiterStore();
  const { redisLimiterStore } = await import('./redis-limiter-store.js');
  return redisLimiterStore(config.redisUrl, config.redisKeyPrefix, onError);
}
