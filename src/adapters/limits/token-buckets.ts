import type { Redis } from 'ioredis';
import { type BucketLevel, bucketState, fillMilliseconds, takeToken } from '../../domain/limits/token-bucket.js';
import type { TokenBuckets } from '../../ports/limiter-store.js';

const MAX_MEMORY_BUCKETS = 100_000;

export function memoryTokenBuckets(now: () => number = Date.now): TokenBuckets {
  const levels = new Map<string, BucketLevel>();
  return {
    async take(key, limits) {
      const { level, state } = takeToken(levels.get(key), limits, now());
      if (levels.size >= MAX_MEMORY_BUCKETS && !levels.has(key)) levels.clear();
      levels.set(key, level);
      return state;
    },
  };
}

/**
 * takeToken's arithmetic, atomic in Redis and on Redis's clock, so processes on different
 * machines agree on time. Returns allowed (0/1) and the tokens left as a string (Lua numbers
 * would be truncated to integers on the way back).
 */
const TAKE_SCRIPT = `
local bucket = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local keep = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local level = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = bucket
if level[1] then
  local elapsed = math.max(0, now - tonumber(level[2]))
  tokens = math.min(bucket, tonumber(level[1]) + elapsed * refill / 1000)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], keep)
return { allowed, tostring(tokens) }
`;

type BucketRedis = Redis & { rdpTakeToken(key: string, bucket: number, refill: number, keep: number): Promise<[number, string]> };

/**
 * Buckets in Redis. When Redis cannot answer, the request is counted in this process's own
 * bucket instead: limited per process rather than failed or waiting.
 */
export function redisTokenBuckets(client: Redis, keyPrefix: string, fallback: TokenBuckets): TokenBuckets {
  const redis = client as BucketRedis;
  if (!redis.rdpTakeToken) redis.defineCommand('rdpTakeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  return {
    async take(key, limits) {
      try {
        const keep = fillMilliseconds(limits) + 1000;
        const [allowed, tokens] = await redis.rdpTakeToken(`${keyPrefix}:${key}`, limits.bucket, limits.refillPerSecond, keep);
        return bucketState(allowed === 1, Number(tokens), limits);
      } catch {
        return fallback.take(key, limits);
      }
    },
  };
}
