import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  basicAuthorization,
  clientCredentialsToken,
  createOrg,
  createTree,
  expectNoInternals,
  globalSnapshot,
  type OrgFixture,
  requestToken,
  snapshot,
} from '../support/fixtures.js';
import { startPlatform, type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

const ACCESS_TTL = 60;

describe('bearer tokens on a regional route', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browse: string;
  beforeAll(async () => {
    t = await startPlatform({ RDP_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TTL) });
    org = await createOrg(t);
    browse = `/v1/nodes/${org.orgId}/browse`;
  });
  afterAll(() => t.close());

  async function expectUnauthenticated(authorization: string | undefined, error: 'not_authenticated' | 'invalid_token') {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const response = await new ApiClient(t.regionUrl(org.region), undefined).request('GET', browse, undefined, headers);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ statusCode: 401, error });
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expectNoInternals(response.body);
  }

  it('is 401 not_authenticated without a token or with one that is not a JWT', async () => {
    await expectUnauthenticated(undefined, 'not_authenticated');
    await expectUnauthenticated('Bearer garbage', 'not_authenticated');
    await expectUnauthenticated('Bearer ', 'not_authenticated');
    await expectUnauthenticated(`Basic ${Buffer.from('a:b').toString('base64')}`, 'not_authenticated');
  });

  it('is 401 invalid_token for a JWT signed by another key', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({
      org: org.orgId,
      client_id: randomUUID(),
      scope: 'read:hierarchy write:hierarchy',
      idp: 'local',
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: randomUUID(), typ: 'at+jwt' })
      .setIssuer(t.authUrl)
      .setAudience('rdp-api')
      .setSubject(org.adminServiceUserId)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey);
    await expectUnauthenticated(`Bearer ${forged}`, 'invalid_token');

    // The real token with its signature replaced is refused the same way.
    const [header, payload] = (org.admin.token as string).split('.');
    await expectUnauthenticated(`Bearer ${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`, 'invalid_token');
  });

  it('is 401 invalid_token once the access token has expired, cached or not', async () => {
    const used = await org.serviceClient({ roleName: 'Organization Administrator' });
    expect((await used.client.get(browse)).status).toBe(200);
    const unused = await org.serviceClient({ roleName: 'Organization Administrator' });
    t.clock.advance((ACCESS_TTL + 1) * 1000);
    await expectUnauthenticated(`Bearer ${used.client.token}`, 'invalid_token');
    await expectUnauthenticated(`Bearer ${unused.client.token}`, 'invalid_token');
  });

  it("refuses a cached valid token within about a second of its user's deactivation, and new tokens", async () => {
    const app = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Soon deactivated',
      flow: 'client-credentials',
      scopes: ['read:hierarchy'],
    });
    await t.admin.grantMembership({
      nodeId: org.orgId,
      principalId: app.serviceUserId as string,
      roleId: org.roles['Organization Reader'] as string,
    });
    const caller = new ApiClient(
      t.regionUrl(org.region),
      await clientCredentialsToken(t, app.clientId, app.clientSecret as string),
    );
    expect((await caller.get(browse)).status).toBe(200);
    await t.platform.stores.global.db
      .updateTable('users')
      .set({ deactivated_at: new Date().toISOString() })
      .where('id', '=', app.serviceUserId as string)
      .execute();
    const started = Date.now();
    let response = await caller.get(browse);
    while (response.status === 200 && Date.now() - started < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      response = await caller.get(browse);
    }
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: 'invalid_token' });
    expect(Date.now() - started).toBeLessThan(1500);

    const before = await globalSnapshot(t);
    const refused = await requestToken(
      t,
      { grant_type: 'client_credentials' },
      basicAuthorization(app.clientId, app.clientSecret as string),
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ hasError: true, error: 'invalid_grant' });
    expect(await globalSnapshot(t)).toEqual(before);
  });
});

describe('the three access layers', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;
  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    tree = await createTree(org);
  });

  it("is 403 'Insufficient OAuth scopes' for a token without the operation's scope", async () => {
    const reader = await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' });
    expect((await reader.client.get(`/v1/nodes/${tree.siteId}`)).status).toBe(200);
    const before = await snapshot(t, org);
    const attempts = [
      reader.client.post(`/v1/nodes/${tree.siteId}/folder`, { name: 'Nope' }),
      reader.client.patch(`/v1/nodes/${tree.folderId}`, { name: 'Nope' }),
      reader.client.delete(`/v1/nodes/${tree.folderId}`),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'Insufficient OAuth scopes' });
    }
    expect(await snapshot(t, org)).toEqual(before);
    const writer = await org.serviceClient({ scopes: 'write:hierarchy', roleName: 'Organization Administrator' });
    const read = await writer.client.get(`/v1/nodes/${tree.siteId}`);
    expect(read.status).toBe(403);
    expect(read.body.message).toBe('Insufficient OAuth scopes');
  });

  it("is 403 'Forbidden resource' for a new service user without any membership", async () => {
    const stranger = await org.serviceClient();
    const before = await snapshot(t, org);
    for (const response of [
      await stranger.client.get(`/v1/nodes/${org.orgId}/browse`),
      await stranger.client.get(`/v1/nodes/${tree.siteId}`),
      await stranger.client.post(`/v1/nodes/${org.orgId}/division`, { name: 'Nope' }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'Forbidden resource' });
    }
    expect(await snapshot(t, org)).toEqual(before);
  });

  it('lets a Viewer of a site read it and nothing more', async () => {
    const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: tree.siteId });
    expect((await viewer.client.get(`/v1/nodes/${tree.siteId}`)).status).toBe(200);
    const children = await viewer.client.get(`/v1/nodes/${tree.siteId}/browse`);
    expect(children.status).toBe(200);
    expect(children.body.map((node: { id: string }) => node.id)).toEqual([tree.folderId]);
    const folder = await viewer.client.get(`/v1/nodes/${tree.folderId}`);
    expect(folder.status).toBe(200);
    // What the node read tells a client it may offer: the Viewer role's permissions, from the site above.
    expect(folder.body.permissions).toEqual(['read', 'download']);
    // Nothing above the membership is reachable.
    expect((await viewer.client.get(`/v1/nodes/${tree.divisionId}`)).body.message).toBe('Forbidden resource');

    const before = await snapshot(t, org);
    for (const response of [
      await viewer.client.post(`/v1/nodes/${tree.siteId}/folder`, { name: 'Not allowed' }),
      await viewer.client.patch(`/v1/nodes/${tree.siteId}`, { name: 'Renamed' }),
      await viewer.client.delete(`/v1/nodes/${tree.folderId}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'Forbidden resource' });
    }
    expect(await snapshot(t, org)).toEqual(before);
  });

  it("answers another organization's caller exactly as for a node that does not exist", async () => {
    const other = await createOrg(t);
    const otherRegion = await createOrg(t, { region: 'us' });
    const before = await snapshot(t, org);
    const requests: Array<[string, string, unknown?]> = [
      ['GET', '/v1/nodes/{id}'],
      ['GET', '/v1/nodes/{id}/browse'],
      ['PATCH', '/v1/nodes/{id}', { name: 'Taken over' }],
      ['POST', '/v1/nodes/{id}/folder', { name: 'Intruder' }],
      ['DELETE', '/v1/nodes/{id}'],
      ['GET', '/v1/nodes/{id}/thumbnail'],
      ['GET', '/v1/nodes/search?underNodeId={id}'],
    ];
    for (const [method, template, body] of requests) {
      for (const existing of [tree.siteId, org.orgId]) {
        const onExisting = await other.admin.request(method, template.replace('{id}', existing), body);
        const onMissing = await other.admin.request(method, template.replace('{id}', randomUUID()), body);
        expect(onExisting.status, `${method} ${template}`).toBe(404);
        expect(onExisting.body).toEqual(onMissing.body);
        const elsewhere = await otherRegion.admin.request(method, template.replace('{id}', existing), body);
        expect(elsewhere.status).toBe(404);
        expect(elsewhere.body).toEqual(onMissing.body);
      }
    }
    const search = await other.admin.get('/v1/nodes/search?searchNameQuery=site');
    expect(search.body).toEqual([]);
    expect(await snapshot(t, org)).toEqual(before);
  });
});
