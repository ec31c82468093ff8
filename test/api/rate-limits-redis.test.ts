import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse, basicAuthorization, createOrg } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two API processes of one deployment (two platforms on the same stores) with their counters in
 * one Redis: an organization's bucket and the token endpoint's failures are shared. The key
 * prefix is unique to this run, so parallel test files never meet.
 */
describe('rate limits shared through Redis', () => {
  const keyPrefix = `rdp-test-${randomBytes(6).toString('hex')}`;
  const env = {
    RDP_REDIS_URL: REDIS_URL,
    RDP_REDIS_KEY_PREFIX: keyPrefix,
    RDP_LOGIN_MAX_FAILURES: '3',
    RDP_TILE_RATE_LIMIT_BUCKET: '3',
    RDP_TILE_RATE_LIMIT_REFILL_PER_SECOND: '1',
  };
  let first: TestPlatform;
  let second: TestPlatform;
  let redis: Redis;

  beforeAll(async () => {
    first = await startPlatform(env);
    second = await startPlatform(env, { sharing: first });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await second?.close();
    await first?.close();
  });

  it('spends one bucket across both processes; the 429 comes from whichever is next', async () => {
    const org = await createOrg(first);
    const other = await createOrg(first);
    // A token a second, the slowest refill: a loaded machine's slow requests seldom refill the bucket between them.
    await first.admin.setOrganizationRateLimit(org.orgId, { bucket: 4, refillPerSecond: 1 });
    const viaFirst = org.admin;
    const viaSecond = new ApiClient(second.regionUrl(org.region), viaFirst.token);

    const served: ApiResponse[] = [];
    for (const client of [viaFirst, viaSecond, viaFirst, viaSecond]) served.push(await client.get(`/v1/nodes/${org.orgId}`));
    expect(served.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(served.map((response) => response.headers.get('ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);
    expect(served.every((response) => response.headers.get('ratelimit-limit') === '4')).toBe(true);

    for (const client of [viaFirst, viaSecond]) {
      const refused = await client.get(`/v1/nodes/${org.orgId}`);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        statusCode: 429,
        error: 'rate_limited',
        message: "The organization's request budget is spent; retry after Retry-After seconds",
      });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
    // The bucket is Redis's, under this run's prefix.
    expect(await redis.keys(`${keyPrefix}:bucket:${org.orgId}`)).toHaveLength(1);

    const unaffected = await new ApiClient(second.regionUrl(other.region), other.admin.token).get(`/v1/nodes/${other.orgId}`);
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get('ratelimit-remaining')).toBe('599');

    // Spent again (a token may have come back meanwhile), then refused with its Retry-After.
    let refused = await viaSecond.get(`/v1/nodes/${org.orgId}`);
    while (refused.status === 200) refused = await viaSecond.get(`/v1/nodes/${org.orgId}`);
    expect(refused.status).toBe(429);
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + 100);
    // A token bucket refills a token at a time: after Retry-After (1 s at one a second) a token is
    // back, not the whole bucket, and the processes spend from it together. A loaded machine may
    // take more than the next second between these requests, so the figures are bounds: another
    // token or two may have come back, never the bucket (four), and never one per process.
    const again = await viaSecond.get(`/v1/nodes/${org.orgId}`);
    expect(again.status).toBe(200);
    expect(Number(again.headers.get('ratelimit-remaining'))).toBeLessThan(3);
    const fromFirst = await viaFirst.get(`/v1/nodes/${org.orgId}`);
    if (fromFirst.status === 200) expect(Number(fromFirst.headers.get('ratelimit-remaining'))).toBeLessThan(3);
    else expect(fromFirst.status).toBe(429);
  });

  it("spends the organization's tile bucket across both processes, apart from its API bucket", async () => {
    const org = await createOrg(first);
    const viaFirst = org.admin;
    const viaSecond = new ApiClient(second.regionUrl(org.region), viaFirst.token);
    // No such derivative: each read takes a token before it answers 404, until the bucket is spent.
    const tiles = `/v1/nodes/${org.orgId}/tiles/tileset.json`;
    const statuses: number[] = [];
    for (const client of [viaFirst, viaSecond, viaFirst, viaSecond, viaFirst]) statuses.push((await client.get(tiles)).status);
    expect(statuses.slice(0, 2)).toEqual([404, 404]);
    expect(statuses).toContain(429);
    const refused = await viaSecond.get(tiles);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      statusCode: 429,
      error: 'rate_limited',
      message: "The organization's tile budget is spent; retry after Retry-After seconds",
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await redis.keys(`${keyPrefix}:bucket:tiles:${org.orgId}`)).toHaveLength(1);
    // The API bucket is untouched: full, and its first request takes one.
    const read = await viaSecond.get(`/v1/nodes/${org.orgId}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-remaining')).toBe('599');
  });

  it('counts failed client authentications of both processes together', async () => {
    const org = await createOrg(first);
    const app = await first.admin.createApplication({
      orgId: org.orgId,
      name: 'Guessed',
      flow: 'client-credentials',
      scopes: ['read:hierarchy'],
    });
    const request = async (t: TestPlatform, secret: string) =>
      (
        await fetch(`${t.authUrl}/oauth/token`, {
          method: 'POST',
          headers: {
            authorization: basicAuthorization(app.clientId, secret),
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ grant_type: 'client_credentials' }),
        })
      ).status;
    expect(await request(first, 'wrong')).toBe(401);
    expect(await request(second, 'wrong')).toBe(401);
    expect(await request(first, 'wrong')).toBe(401);
    expect(await request(second, app.clientSecret as string)).toBe(429);
    expect(await request(first, app.clientSecret as string)).toBe(429);
  });
});
