import {
  ClientCredentials,
  connect,
  createApiClient,
  ok,
  paginate,
  RdpApiError,
  type RdpClient,
} from '@reality-data-platform/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** A client-credentials application whose service user administers the organization, driven by the SDK. */
async function sdkAdmin(t: TestPlatform, org: OrgFixture, scopes = ['read:basic', 'read:hierarchy', 'write:hierarchy']) {
  const app = await t.admin.createApplication({ orgId: org.orgId, name: 'SDK integration', flow: 'client-credentials', scopes });
  await t.admin.grantMembership({
    nodeId: org.orgId,
    principalId: app.serviceUserId as string,
    roleId: org.roles['Organization Administrator'] as string,
  });
  return new ClientCredentials({ authUrl: t.authUrl, clientId: app.clientId, clientSecret: app.clientSecret as string });
}

describe('the SDK: client credentials, discovery, typed calls, paging', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let rdp: RdpClient;
  withPlatformAndOrg((started) => ({ t, org } = started));
  beforeAll(async () => {
    rdp = await connect({ authUrl: t.authUrl, tokens: await sdkAdmin(t, org) });
  });

  it('discovers the organization and its region from api-info', () => {
    expect(rdp.organizationId).toBe(org.orgId);
    expect(rdp.apiUrl).toBe(t.regionUrl('eu'));
    expect(rdp.apiInfo.scopes).toEqual(expect.arrayContaining(['read:hierarchy', 'write:hierarchy']));
  });

  it('creates a division and a site through the typed API and browses them', async () => {
    const division = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/division', {
        params: { path: { parentId: rdp.organizationId } },
        body: { name: 'North' },
      }),
    );
    const site = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/site', {
        params: { path: { parentId: division.id } },
        body: { name: 'Harbour', address: '1 Quay Street' },
      }),
    );
    expect(site.type).toBe('site');
    const browsed = await ok(
      rdp.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId: division.id }, query: { limit: 100 } } }),
    );
    expect(browsed.map((node) => node.name)).toEqual(['Harbour']);
  });

  it("throws RdpApiError with the platform's error body", async () => {
    const refused = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/division', { params: { path: { parentId: rdp.organizationId } }, body: { name: '' } }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RdpApiError);
    expect((refused as RdpApiError).status).toBe(400);
    expect((refused as RdpApiError).error).toBe('ValidationError');
    expect((refused as RdpApiError).body.message).toMatch(/name/);
  });

  it('pages over more than one page, by offset and by cursor', async () => {
    const folder = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/division', {
        params: { path: { parentId: rdp.organizationId } },
        body: { name: 'Many' },
      }),
    );
    const names = Array.from({ length: 7 }, (_, index) => `Site ${index}`);
    for (const name of names) {
      await ok(
        rdp.api.POST('/v1/nodes/{parentId}/site', { params: { path: { parentId: folder.id } }, body: { name, address: 'x' } }),
      );
    }
    const requests: unknown[] = [];
    const browsed: string[] = [];
    for await (const node of paginate(
      (page) => {
        requests.push(page);
        return rdp.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId: folder.id }, query: page } });
      },
      { pageSize: 3 },
    )) {
      browsed.push(node.name);
    }
    expect(browsed.sort()).toEqual(names);
    // Browse answers Next-Cursor on a full page: the pages after the first continue by cursor.
    expect(requests).toHaveLength(3);
    expect(requests[0]).toEqual({ limit: 3, offset: 0 });
    expect(requests[1]).toEqual({ limit: 3, cursor: expect.any(String) });

    // A list without cursors (the metadata types) pages by offset.
    const types = ['Pump', 'Valve', 'Tank', 'Pipe', 'Gauge'];
    for (const name of types) {
      await ok(
        rdp.api.POST('/v1/metadata-types', {
          body: {
            name,
            appliesTo: ['asset'],
            properties: [{ section: 'General', name: 'Serial', type: 'shortText', required: false }],
          },
        }),
      );
    }
    const offsets: unknown[] = [];
    const listed: string[] = [];
    for await (const type of paginate(
      (page) => {
        offsets.push(page);
        return rdp.api.GET('/v1/metadata-types', { params: { query: page } });
      },
      { pageSize: 2 },
    )) {
      listed.push(type.name);
    }
    expect(listed).toEqual([...types].sort());
    expect(offsets).toEqual([
      { limit: 2, offset: 0 },
      { limit: 2, offset: 2 },
      { limit: 2, offset: 4 },
    ]);
    // A page-numbered list answering { items, total } (the business objects of a site's twin).
    const twinSite = await ok(
      rdp.api.POST('/v1/nodes/{parentId}/site', {
        params: { path: { parentId: folder.id } },
        body: { name: 'Twin', address: 'x' },
      }),
    );
    const points = ['P1', 'P2', 'P3', 'P4', 'P5'];
    for (const name of points) {
      await ok(
        rdp.api.POST('/v1/twin/{contextId}/points-of-interest', {
          params: { path: { contextId: twinSite.id } },
          body: { name, position: { x: 1, y: 2, z: 3 } },
        }),
      );
    }
    const pageNumbers: number[] = [];
    const found: string[] = [];
    for await (const object of paginate(
      (page, pageNumber) => {
        pageNumbers.push(pageNumber);
        return rdp.api.GET('/v1/business-objects', {
          params: {
            query: { contextId: twinSite.id, types: ['pointOfInterest'], page: pageNumber, limit: page.limit, sortBy: 'name' },
          },
        });
      },
      { pageSize: 2 },
    )) {
      found.push(object.name);
    }
    expect(found).toEqual(points);
    expect(pageNumbers).toEqual([1, 2, 3]);

    // `max` stops early.
    const firstThree = [];
    for await (const type of paginate((page) => rdp.api.GET('/v1/metadata-types', { params: { query: page } }), {
      pageSize: 2,
      max: 3,
    })) {
      firstThree.push(type.name);
    }
    expect(firstThree).toEqual([...types].sort().slice(0, 3));
  });
});

describe("the SDK when the organization's request budget is spent", () => {
  let t: TestPlatform;
  let org: OrgFixture;
  // Two requests in the bucket, one more each second.
  beforeAll(async () => {
    t = await startPlatform({ RDP_RATE_LIMIT_BUCKET: '2', RDP_RATE_LIMIT_REFILL_PER_SECOND: '1' });
    org = await createOrg(t);
  });
  afterAll(() => t?.close());

  it('waits for Retry-After and sends the call again; with no retries the 429 is an RdpApiError', async () => {
    const tokens = await sdkAdmin(t, org);
    const rdp = await connect({ authUrl: t.authUrl, tokens, apiUrl: t.regionUrl('eu') });
    const browse = (client = rdp.api) =>
      ok(client.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId: org.orgId }, query: { limit: 10 } } }));
    const started = Date.now();
    for (let call = 0; call < 4; call += 1) await browse();
    // The third and fourth calls each waited for a refill.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    const impatient = createApiClient({ apiUrl: t.regionUrl('eu'), tokens, rateLimitRetries: 0 });
    const outcomes = await Promise.allSettled([browse(impatient), browse(impatient), browse(impatient)]);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected') as PromiseRejectedResult[];
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.reason).toMatchObject({ status: 429, error: 'rate_limited' });
  });
});
