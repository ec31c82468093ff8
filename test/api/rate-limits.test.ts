import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, basicAuthorization, createOrg } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { rdpAdmin } from '../support/rdp-cli.js';

const RATE_LIMITED = {
  statusCode: 429,
  error: 'rate_limited',
  message: "The organization's request budget is spent; retry after Retry-After seconds",
};

function rateLimitHeaders(response: ApiResponse) {
  return {
    limit: response.headers.get('ratelimit-limit'),
    remaining: response.headers.get('ratelimit-remaining'),
    reset: Number(response.headers.get('ratelimit-reset')),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('per-organization request buckets', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startPlatform();
  });
  afterAll(() => t.close());

  it('answers 429 rate_limited past the bucket, leaves other organizations alone, and serves again after the refill', async () => {
    const small = await createOrg(t);
    const other = await createOrg(t);
    // Bucket 3 refilling 2 a second: the three requests and the refusals below must come within
    // the half second one token takes to come back (at 10 a second, a loaded machine missed it).
    await t.admin.setOrganizationRateLimit(small.orgId, { bucket: 3, refillPerSecond: 2 });

    const served: ApiResponse[] = [];
    for (let i = 0; i < 3; i += 1) served.push(await small.admin.get(`/v1/nodes/${small.orgId}`));
    expect(served.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(served.map((response) => rateLimitHeaders(response).remaining)).toEqual(['2', '1', '0']);
    // Seconds until the bucket is full again: (3 - tokens) / 2, rounded up.
    expect(served.map((response) => rateLimitHeaders(response).reset)).toEqual([1, 1, 2]);
    for (const response of served) expect(rateLimitHeaders(response).limit).toBe('3');

    const refused = await small.admin.get(`/v1/nodes/${small.orgId}`);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(RATE_LIMITED);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(rateLimitHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: 2 });
    // Every scoped route shares the one bucket, writes included.
    const write = await small.admin.post(`/v1/nodes/${small.orgId}/division`, { name: 'Refused' });
    expect(write.status).toBe(429);
    expect(write.body).toEqual(RATE_LIMITED);

    const unaffected = await other.admin.get(`/v1/nodes/${other.orgId}`);
    expect(unaffected.status).toBe(200);
    expect(rateLimitHeaders(unaffected).limit).toBe('600');
    expect(rateLimitHeaders(unaffected).remaining).toBe('599');

    // Served again one Retry-After later; full again after the reset the refusal announced.
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + 50);
    const again = await small.admin.get(`/v1/nodes/${small.orgId}`);
    expect(again.status).toBe(200);
    await sleep(rateLimitHeaders(refused).reset * 1000 + 50);
    const full = await small.admin.get(`/v1/nodes/${small.orgId}`);
    expect(full.status).toBe(200);
    expect(rateLimitHeaders(full).remaining).toBe('2');
  });

  it('spends nothing on requests refused with 401 or for a missing scope', async () => {
    const org = await createOrg(t);
    await t.admin.setOrganizationRateLimit(org.orgId, { bucket: 2, refillPerSecond: 1 });
    const { client: scopeless } = await org.serviceClient({ scopes: 'read:basic', roleName: 'Organization Reader' });

    for (let i = 0; i < 5; i += 1) {
      const missing = await org.admin.withToken(undefined).get(`/v1/nodes/${org.orgId}`);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('ratelimit-limit')).toBeNull();
      const garbage = await org.admin.withToken('not.a.token').get(`/v1/nodes/${org.orgId}`);
      expect(garbage.status).toBe(401);
      const forbidden = await scopeless.get(`/v1/nodes/${org.orgId}`);
      expect(forbidden.status).toBe(403);
      expect(forbidden.headers.get('ratelimit-limit')).toBeNull();
    }
    const first = await org.admin.get(`/v1/nodes/${org.orgId}`);
    const second = await org.admin.get(`/v1/nodes/${org.orgId}`);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(rateLimitHeaders(second).remaining).toBe('0');
    expect((await org.admin.get(`/v1/nodes/${org.orgId}`)).status).toBe(429);
  });

  it('validates the settings and goes back to the defaults', async () => {
    const org = await createOrg(t);
    await expect(t.admin.setOrganizationRateLimit(org.orgId, { bucket: 0, refillPerSecond: 1 })).rejects.toThrow(/bucket/);
    await expect(t.admin.setOrganizationRateLimit(org.orgId, { bucket: 5, refillPerSecond: 1.5 })).rejects.toThrow(/refill/);
    await expect(
      t.admin.setOrganizationRateLimit('00000000-0000-0000-0000-000000000000', { bucket: 5, refillPerSecond: 1 }),
    ).rejects.toThrow(/not found/);
    // The command line, as an operator runs it, on the server's stores.
    expect(await rdpAdmin(t, 'org', 'set-rate-limit', '--org', org.orgId, '--bucket', '50', '--refill', '5')).toEqual({
      id: org.orgId,
      bucket: 50,
      refillPerSecond: 5,
    });
    expect(rateLimitHeaders(await org.admin.get(`/v1/nodes/${org.orgId}`)).limit).toBe('50');
    expect(await rdpAdmin(t, 'org', 'set-rate-limit', '--org', org.orgId, '--bucket', 'default', '--refill', 'default')).toEqual({
      id: org.orgId,
      bucket: null,
      refillPerSecond: null,
    });
    // The defaults, seen on another organization: running servers keep settings for 5 seconds.
    const fresh = await createOrg(t);
    expect(rateLimitHeaders(await fresh.admin.get(`/v1/nodes/${fresh.orgId}`)).limit).toBe('600');
  });
});

describe('brute force on the token endpoint', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startPlatform({ RDP_LOGIN_MAX_FAILURES: '3', RDP_LOGIN_MAX_FAILURES_PER_ADDRESS: '5', RDP_TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  async function application(orgId: string) {
    const app = await t.admin.createApplication({
      orgId,
      name: 'Client',
      flow: 'client-credentials',
      scopes: ['read:hierarchy'],
    });
    return { id: app.clientId, secret: app.clientSecret as string };
  }

  /** A client-credentials request as if from `address` (the proxy's X-Forwarded-For). */
  async function tokenRequest(client: { id: string; secret: string }, address: string): Promise<ApiResponse> {
    const response = await fetch(`${t.authUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: basicAuthorization(client.id, client.secret),
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': address,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  }

  it('refuses a client id after consecutive failures, and an address after its failures, with 429 and Retry-After', async () => {
    const org = await createOrg(t);
    const [a, b, c] = [await application(org.orgId), await application(org.orgId), await application(org.orgId)];
    const wrong = (client: { id: string }) => ({ id: client.id, secret: 'wrong-secret' });

    for (let i = 0; i < 3; i += 1) expect((await tokenRequest(wrong(a), '203.0.113.1')).status).toBe(401);
    const blocked = await tokenRequest(a, '203.0.113.1');
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({
      hasError: true,
      error: 'rate_limited',
      error_description: 'Too many failed client authentications; retry later',
      statusCode: 429,
      message: 'Too many failed client authentications; retry later',
    });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(850);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(blocked.headers.get('cache-control')).toBe('no-store');
    // The client id is refused from anywhere: a distributed guess gains nothing.
    expect((await tokenRequest(a, '198.51.100.7')).status).toBe(429);

    // Another client from the same address is served: the address has 3 failures of its 5.
    expect((await tokenRequest(b, '203.0.113.1')).status).toBe(200);
    // Two more failures of the address, on another client id, use up the address.
    for (let i = 0; i < 2; i += 1) expect((await tokenRequest(wrong(b), '203.0.113.1')).status).toBe(401);
    const addressBlocked = await tokenRequest(c, '203.0.113.1');
    expect(addressBlocked.status).toBe(429);
    expect(addressBlocked.body.error).toBe('rate_limited');
    // The same correct client from another address still works.
    const elsewhere = await tokenRequest(c, '203.0.113.2');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.access_token).toEqual(expect.any(String));
  });

  it('resets a client id after a success, so only consecutive failures count', async () => {
    const org = await createOrg(t);
    const d = await application(org.orgId);
    for (let round = 0; round < 3; round += 1) {
      const address = `192.0.2.${round + 10}`;
      for (let i = 0; i < 2; i += 1) expect((await tokenRequest({ id: d.id, secret: 'nope' }, address)).status).toBe(401);
      expect((await tokenRequest(d, address)).status).toBe(200);
    }
  });

  it('counts unknown client ids and malformed Basic headers against the address', async () => {
    const org = await createOrg(t);
    const e = await application(org.orgId);
    for (let i = 0; i < 5; i += 1) {
      expect((await tokenRequest({ id: `unknown-${i}`, secret: 'x' }, '192.0.2.99')).status).toBe(401);
    }
    expect((await tokenRequest(e, '192.0.2.99')).status).toBe(429);
    expect((await tokenRequest(e, '192.0.2.100')).status).toBe(200);
  });
});
