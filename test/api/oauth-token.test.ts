import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  basicAuthorization,
  clientCredentialsToken,
  createOrg,
  expectNoInternals,
  globalSnapshot,
  type OrgFixture,
  requestToken,
} from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const ACCESS_TTL = 900;
const REFRESH_TTL = 7200;

describe('POST {auth_url}/oauth/token with client credentials', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let app: { clientId: string; clientSecret: string };
  const grant = { grant_type: 'client_credentials' };

  beforeAll(async () => {
    t = await startPlatform({
      RDP_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TTL),
      RDP_REFRESH_TOKEN_TTL_SECONDS: String(REFRESH_TTL),
    });
    org = await createOrg(t);
    const created = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Token tests',
      flow: 'client-credentials',
      scopes: ['read:hierarchy', 'write:hierarchy'],
    });
    app = { clientId: created.clientId, clientSecret: created.clientSecret as string };
  });
  afterAll(() => t.close());

  /** A refused token request: its status, its OAuth error, and nothing written to the store. */
  async function expectRefused(form: Record<string, string>, authorization: string | undefined, status: number, error: string) {
    const before = await globalSnapshot(t);
    const response = await requestToken(t, form, authorization);
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ hasError: true, error });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectNoInternals(response.body);
    expect(await globalSnapshot(t)).toEqual(before);
    return response;
  }

  it('answers the spec fields, both namings, and no-store', async () => {
    const response = await requestToken(t, grant, basicAuthorization(app.clientId, app.clientSecret));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = response.body;
    expect(body.hasError).toBe(false);
    expect(body.token_type).toBe('bearer');
    expect(typeof body.access_token).toBe('string');
    expect(body.access_token.split('.')).toHaveLength(3);
    expect(typeof body.refresh_token).toBe('string');
    expect(body.refresh_token.length).toBeGreaterThanOrEqual(32);
    // The spec: expires_in is an integer and describes the refresh token.
    expect(Number.isInteger(body.expires_in)).toBe(true);
    expect(body.expires_in).toBe(REFRESH_TTL);
    expect(body.accessToken).toBe(body.access_token);
    expect(Number.isInteger(body.expiresIn)).toBe(true);
    expect(body.expiresIn).toBe(ACCESS_TTL);
    expect(body.scope.split(' ').sort()).toEqual(['read:hierarchy', 'write:hierarchy']);
  });

  it('stores nothing to issue a refresh token, and only its hash once it is used', async () => {
    const basic = basicAuthorization(app.clientId, app.clientSecret);
    const before = await globalSnapshot(t);
    const response = await requestToken(t, grant, basic);
    const plain: string = response.body.refresh_token;
    expect(await globalSnapshot(t)).toEqual(before);

    const refreshed = await requestToken(t, { grant_type: 'refresh_token', refresh_token: plain }, basic);
    expect(refreshed.status).toBe(200);
    const after = await globalSnapshot(t);
    expect(JSON.stringify(after)).not.toContain(plain);
    const hashed = createHash('sha256').update(plain).digest('base64url');
    const uses = after.refreshTokenUses.filter((row) => row.token_hash === hashed);
    expect(uses).toHaveLength(1);
    expect(uses[0]).toMatchObject({ client_id: app.clientId });
  });

  it('refuses a refresh token altered in any character, storing nothing', async () => {
    const basic = basicAuthorization(app.clientId, app.clientSecret);
    const plain: string = (await requestToken(t, grant, basic)).body.refresh_token;
    const before = await globalSnapshot(t);
    for (const index of [0, 5, Math.floor(plain.length / 2), plain.length - 1]) {
      const flipped = plain[index] === 'A' ? 'B' : 'A';
      const altered = `${plain.slice(0, index)}${flipped}${plain.slice(index + 1)}`;
      const response = await requestToken(t, { grant_type: 'refresh_token', refresh_token: altered }, basic);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
    }
    expect(await globalSnapshot(t)).toEqual(before);
  });

  it('is 401 invalid_client with WWW-Authenticate for a wrong client id or secret', async () => {
    const wrongId = await expectRefused(grant, basicAuthorization(randomUUID(), app.clientSecret), 401, 'invalid_client');
    expect(wrongId.headers.get('www-authenticate')).toMatch(/^Basic /);
    const wrongSecret = await expectRefused(
      grant,
      basicAuthorization(app.clientId, `${app.clientSecret}x`),
      401,
      'invalid_client',
    );
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic /);
    // The same answer for both, so client ids cannot be probed.
    expect(wrongSecret.body).toEqual(wrongId.body);
  });

  it('is 401 for a Basic header that is not base64(client_id:client_secret)', async () => {
    const notBase64 = `Basic ${app.clientId}:${app.clientSecret}`;
    const noColon = `Basic ${Buffer.from(`${app.clientId}${app.clientSecret}`).toString('base64')}`;
    const emptyId = `Basic ${Buffer.from(`:${app.clientSecret}`).toString('base64')}`;
    for (const authorization of [notBase64, noColon, emptyId, 'Basic ', 'Basic !!!!']) {
      const response = await expectRefused(grant, authorization, 401, 'invalid_client');
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    }
  });

  it('is 401 without any client authentication', async () => {
    await expectRefused(grant, undefined, 401, 'invalid_client');
  });

  it('is 400 unsupported_grant_type and 400 invalid_request without grant_type', async () => {
    const basic = basicAuthorization(app.clientId, app.clientSecret);
    await expectRefused({ grant_type: 'password', username: 'a', password: 'b' }, basic, 400, 'unsupported_grant_type');
    await expectRefused({}, basic, 400, 'invalid_request');
  });

  it('is 400 invalid_request for a repeated parameter, not a server error', async () => {
    const basic = basicAuthorization(app.clientId, app.clientSecret);
    const repeated = async (body: string, authorization?: string) => {
      const before = await globalSnapshot(t);
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (authorization) headers.authorization = authorization;
      const response = await fetch(`${t.authUrl}/oauth/token`, { method: 'POST', headers, body });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ hasError: true, error: 'invalid_request' });
      expect(await globalSnapshot(t)).toEqual(before);
    };
    await repeated('grant_type=client_credentials&scope=read:hierarchy&scope=write:hierarchy', basic);
    await repeated('grant_type=client_credentials&grant_type=client_credentials', basic);
    await repeated(`grant_type=client_credentials&client_id=${app.clientId}&client_id=x&client_secret=a&client_secret=b`);
  });

  it('narrows the token to a requested scope and refuses scopes outside the application', async () => {
    const basic = basicAuthorization(app.clientId, app.clientSecret);
    const narrowed = await requestToken(t, { ...grant, scope: 'read:hierarchy' }, basic);
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('read:hierarchy');
    const info = await new ApiClient(t.authUrl, narrowed.body.access_token).get('/oauth/api-info');
    expect(info.body.scopes).toEqual(['read:hierarchy']);

    await expectRefused({ ...grant, scope: 'read:hierarchy write:user' }, basic, 400, 'invalid_scope');
    await expectRefused({ ...grant, scope: 'admin:everything' }, basic, 400, 'invalid_scope');
  });

  it('stores the legacy scope manage:hierarchy as write:hierarchy and issues that', async () => {
    const created = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Legacy scopes',
      flow: 'client-credentials',
      scopes: ['read:hierarchy', 'manage:hierarchy'],
    });
    expect(created.scopes.sort()).toEqual(['read:hierarchy', 'write:hierarchy']);
    const row = await t.platform.directory.findApplication(created.clientId);
    expect(row?.scopes.split(' ').sort()).toEqual(['read:hierarchy', 'write:hierarchy']);
    const token = await requestToken(t, grant, basicAuthorization(created.clientId, created.clientSecret as string));
    expect(token.body.scope.split(' ').sort()).toEqual(['read:hierarchy', 'write:hierarchy']);
    const info = await new ApiClient(t.authUrl, token.body.access_token).get('/oauth/api-info');
    expect(info.body.scopes.sort()).toEqual(['read:hierarchy', 'write:hierarchy']);
  });
});

describe('GET {auth_url}/oauth/api-info', () => {
  let t: TestPlatform;
  const usUrl = 'https://us.api.example.test/reality';

  beforeAll(async () => {
    t = await startPlatform({ RDP_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TTL), RDP_REGION_URL_US: usUrl });
  });
  afterAll(() => t.close());

  it('describes the user, the organization, the scopes, the lifetime and the regional apiUrl', async () => {
    const org = await createOrg(t, { region: 'eu' });
    const created = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Discovery app',
      flow: 'client-credentials',
      scopes: ['read:basic', 'read:hierarchy'],
    });
    const token = await clientCredentialsToken(t, created.clientId, created.clientSecret as string);
    const info = await new ApiClient(t.authUrl, token).get('/oauth/api-info');
    expect(info.status).toBe(200);
    const orgRow = await t.platform.directory.findOrganization(org.orgId);
    expect(info.body).toEqual({
      user: { id: created.serviceUserId, firstName: expect.any(String), lastName: expect.any(String), email: expect.any(String) },
      organization: { id: org.orgId, name: orgRow?.name },
      scopes: expect.arrayContaining(['read:basic', 'read:hierarchy']),
      issuedAt: expect.any(String),
      expiresAt: expect.any(String),
      apiUrl: t.regionUrl('eu'),
    });
    expect(info.body.scopes).toHaveLength(2);
    const issuedAt = Date.parse(info.body.issuedAt);
    expect(new Date(issuedAt).toISOString()).toBe(info.body.issuedAt);
    expect(Date.parse(info.body.expiresAt) - issuedAt).toBe(ACCESS_TTL * 1000);
    expect(Math.abs(issuedAt - t.clock.now().getTime())).toBeLessThan(5000);
  });

  it("answers the configured base address of an organization's region", async () => {
    const org = await createOrg(t, { region: 'us' });
    const info = await new ApiClient(t.authUrl, org.admin.token).get('/oauth/api-info');
    expect(info.status).toBe(200);
    expect(info.body.organization.id).toBe(org.orgId);
    expect(info.body.apiUrl).toBe(usUrl);
  });

  it('is 401 without a bearer token', async () => {
    const response = await new ApiClient(t.authUrl, undefined).get('/oauth/api-info');
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ statusCode: 401, error: 'not_authenticated' });
  });
});
