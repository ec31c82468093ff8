import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { memoryLimiterStore } from '../src/adapters/limits/limiter-store.js';
import { redisLimiterStore } from '../src/adapters/limits/redis-limiter-store.js';
import type { LimiterStore } from '../src/ports/limiter-store.js';
import { OrganizationRateLimiter } from '../src/services/organization-rate-limiter.js';
import { browseFolder } from './support/api-tree.js';
import { fetchToken, seedOrganization } from './support/bench-store.js';
import { startChildServer } from './support/child-server.js';
import { type LoadResult, warmedLoad } from './support/load.js';
import { log, pct, quick, runMain, type SummaryRow } from './support/report.js';
import { median } from './support/rounds.js';
import { onEachStore, type StoreUnderTest } from './support/stores.js';

type BenchClient = { clientId: string; clientSecret: string };

/**
 * What the organization's request bucket adds to an authenticated browse (20 children, 50
 * connections): the platform with RDP_RATE_LIMIT_DISABLED=1 against the same platform with the
 * bucket in memory and in Redis, each in a child process, the order rotated every round. The
 * figure is the median of the rounds' "time added" (disabled req/s over the variant's, less one).
 * The bucket is made too large to run out, so every request pays for the count and the headers.
 * SQLite, and PostgreSQL with RDP_BENCH_DATABASE_URL.
 */
const CONNECTIONS = 50;
const SECONDS = quick ? 2 : 5;
const WARMUP_SECONDS = quick ? 1 : 2;
const ROUNDS = quick ? 3 : 5;
const REDIS_URL = process.env.RDP_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function browseLoad(env: Record<string, string>, folderId: string, client: BenchClient): Promise<LoadResult> {
  const server = await startChildServer('bench/servers/platform-server.ts', { RDP_LOG_LEVEL: 'warn', ...env });
  try {
    const url = `${server.origin}/eu/reality/v1/nodes/${folderId}/browse`;
    const headers = { authorization: `Bearer ${await fetchToken(server.origin, client)}` };
    return await warmedLoad(url, {
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      headers,
      serverPid: server.child.pid,
    });
  } finally {
    await server.stop();
  }
}

/**
 * Wall time and this process's CPU time per bucket take with 50 takes in flight: the limiter's
 * own cost, steadier than the difference of two noisy HTTP rates. With Redis on the same
 * machine the wall time includes Redis's share of the cores; the CPU time is the API process's.
 */
async function takeCost(store: LimiterStore): Promise<{ wallUs: number; cpuUs: number }> {
  const limiter = new OrganizationRateLimiter(store.buckets, async () => undefined, {
    disabled: false,
    bucket: 1e9,
    refillPerSecond: 1e9,
    tiles: { bucket: 1e9, refillPerSecond: 1e9 },
  });
  const perLoop = quick ? 1000 : 4000;
  const loop = async () => {
    for (let i = 0; i < perLoop; i += 1) await limiter.take('bench-org');
  };
  await loop();
  const start = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const used = process.cpuUsage(cpu);
  const takes = perLoop * CONNECTIONS;
  return { wallUs: ((performance.now() - start) * 1000) / takes, cpuUs: (used.user + used.system) / takes };
}

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function removeRedisKeys(prefix: string): Promise<void> {
  const client = new Redis(REDIS_URL);
  const keys = await client.keys(`${prefix}:*`);
  if (keys.length > 0) await client.del(...keys);
  await client.quit();
}

/** The variants on one store: time added to a browse per variant (medians of the rounds), and the browse's req/s without the bucket. */
async function onStore(store: StoreUnderTest, withRedis: boolean) {
  const client = await seedOrganization(store.env);
  const maker = await startChildServer('bench/servers/platform-server.ts', { ...store.env, RDP_LOG_LEVEL: 'warn' });
  const folderId = await browseFolder(maker.origin, client.orgId, await fetchToken(maker.origin, client)).finally(() =>
    maker.stop(),
  );
  const keyPrefix = `rdp-bench-${randomBytes(4).toString('hex')}`;
  const huge = { RDP_RATE_LIMIT_BUCKET: '1000000000', RDP_RATE_LIMIT_REFILL_PER_SECOND: '1000000000' };
  const variants: [string, Record<string, string>][] = [
    ['disabled', { RDP_RATE_LIMIT_DISABLED: '1' }],
    ['memory', huge],
    ...(withRedis
      ? [['redis', { ...huge, RDP_REDIS_URL: REDIS_URL, RDP_REDIS_KEY_PREFIX: keyPrefix }] as [string, Record<string, string>]]
      : []),
  ];
  // Per variant and round: the time the bucket adds by req/s, and by the server's CPU per request.
  const added: Record<string, { time: number[]; cpu: number[] }> = Object.fromEntries(
    variants.slice(1).map(([name]) => [name, { time: [], cpu: [] }]),
  );
  const disabledRates: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      // Rotated every round, so that a drift of the machine's load favours no variant.
      const order = [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)];
      const results: Record<string, LoadResult> = {};
      for (const [name, env] of order) results[name] = await browseLoad({ ...store.env, ...env }, folderId, client);
      const disabled = results.disabled as LoadResult;
      disabledRates.push(disabled.requestsPerSecond);
      for (const [name] of variants.slice(1)) {
        const result = results[name] as LoadResult;
        added[name]?.time.push(disabled.requestsPerSecond / result.requestsPerSecond - 1);
        if (result.cpuMicrosPerRequest !== undefined && disabled.cpuMicrosPerRequest !== undefined) {
          added[name]?.cpu.push(result.cpuMicrosPerRequest / disabled.cpuMicrosPerRequest - 1);
        }
      }
      const line = order.map(([name]) => {
        const result = results[name] as LoadResult;
        return `${name} ${result.requestsPerSecond.toFixed(0)} req/s (${result.cpuMicrosPerRequest?.toFixed(0) ?? '?'} us CPU)`;
      });
      log(`  ${store.label} round ${round + 1}: ${line.join(', ')}`);
    }
  } finally {
    if (withRedis) await removeRedisKeys(keyPrefix);
  }
  const rows: SummaryRow[] = [];
  for (const [name, { time, cpu }] of Object.entries(added)) {
    const byTime = median(time);
    const byCpu = cpu.length > 0 ? median(cpu) : undefined;
    log(
      `  ${store.label}: bucket in ${name} adds ${pct(byTime)} to a browse by req/s` +
        (byCpu === undefined ? '' : `, ${pct(byCpu)} by server CPU per request`) +
        `, medians of ${ROUNDS} rounds (target <= 10%)`,
    );
    rows.push({
      bench: 'rate-limit',
      measure: `time added to a browse, bucket in ${name}, ${store.label}`,
      ratio: byCpu === undefined ? pct(byTime) : `${pct(byTime)} (CPU ${pct(byCpu)})`,
      target: '<= 10%',
      met: byTime <= 0.1,
    });
  }
  return { rows, disabledRate: median(disabledRates) };
}

export async function runRateLimit(): Promise<SummaryRow[]> {
  log(
    `# rate-limit: browse with and without the organization's bucket, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds`,
  );
  const withRedis = await redisReachable();
  if (!withRedis) log(`  Redis at ${REDIS_URL} is not reachable: measuring memory only`);
  let requestUs: number | undefined;
  const rows = await onEachStore('rate-limit', async (store) => {
    const measured = await onStore(store, withRedis);
    requestUs ??= 1e6 / measured.disabledRate;
    return measured.rows;
  });

  // The limiter's own cost in this process, against the time of a browse on SQLite.
  const micro: Record<string, { wallUs: number; cpuUs: number }> = { memory: await takeCost(memoryLimiterStore()) };
  if (withRedis) {
    const keyPrefix = `rdp-bench-${randomBytes(4).toString('hex')}-micro`;
    const redis = await redisLimiterStore(REDIS_URL, keyPrefix, () => {});
    try {
      micro.redis = await takeCost(redis);
    } finally {
      await redis.close();
      await removeRedisKeys(keyPrefix);
    }
  }
  for (const [name, { wallUs, cpuUs }] of Object.entries(micro)) {
    const share = cpuUs / (requestUs as number);
    log(
      `  bucket in ${name}, in-process with ${CONNECTIONS} in flight: ${wallUs.toFixed(2)} us wall, ` +
        `${cpuUs.toFixed(2)} us CPU per take (${pct(share)} of a browse on SQLite)`,
    );
    rows.push({
      bench: 'rate-limit',
      measure: `API-process CPU per take in ${name} / a browse (SQLite)`,
      ratio: `${cpuUs.toFixed(2)} us (${pct(share)})`,
      target: 'info',
      met: undefined,
    });
  }
  return rows;
}

runMain(import.meta.url, runRateLimit);
