import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { LimiterStore } from '../../ports/limiter-store.js';
import { memoryTokenBuckets, redisTokenBuckets } from './token-buckets.js';

const CONNECT_WAIT_MS = 2000;

/**
 * Counters in Redis. Commands fail at once rather than queue while Redis is unreachable, and each
 * limiter then falls back to an in-memory one of the same size (its insurance): requests stay
 * limited per process instead of waiting or failing.
 */
export async function redisLimiterStore(url: string, keyPrefix: string, onError: (error: Error) => void): Promise<LimiterStore> {
  // Auto-pipelining sends the counts of concurrent requests in one write: fewer round trips under load.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true });
  client.on('error', onError);
  // Until the connection is ready every request would take the insurance: wait for it a moment.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CONNECT_WAIT_MS);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    buckets: redisTokenBuckets(client, `${keyPrefix}:bucket`, memoryTokenBuckets()),
    limiter: (namespace, points, duration) =>
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `${keyPrefix}:${namespace}`,
        points,
        duration,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: namespace, points, duration }),
      }),
    shared: true,
    ping: async () => {
      await client.ping();
    },
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
