import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import type { OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';

/** oauth4webapi refuses http:// unless told; the test server is on loopback only. */
const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe('the client credentials flow through oauth4webapi', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let app: { clientId: string; clientSecret: string };
  let as: oauth.AuthorizationServer;

  withPlatformAndOrg(async (started) => {
    ({ t, org } = started);
    const created = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'oauth4webapi client',
      flow: 'client-credentials',
      scopes: ['read:basic', 'read:hierarchy', 'write:hierarchy'],
    });
    app = { clientId: created.clientId, clientSecret: created.clientSecret as string };
    const role = (await t.admin.listRoles(org.orgId)).find((r) => r.name === 'Organization Administrator');
    await t.admin.grantMembership({
      nodeId: org.orgId,
      principalId: created.serviceUserId as string,
      roleId: role?.id as string,
    });
  });

  it('discovers the authorization server from {auth_url} (RFC 8414)', async () => {
    const issuer = new URL(t.authUrl);
    const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
    expect(new URL(response.url).pathname).toBe('/.well-known/oauth-authorization-server/auth');
    as = await oauth.processDiscoveryResponse(issuer, response);
    expect(as.issuer).toBe(t.authUrl);
    expect(as.token_endpoint).toBe(`${t.authUrl}/oauth/token`);
    expect(as.grant_types_supported).toContain('client_credentials');
    expect(as.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
  });

  it('gets a token, reads api-info with it and browses the organization at apiUrl', async () => {
    const client: oauth.Client = { client_id: app.clientId };
    const tokenResponse = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(app.clientSecret),
      new URLSearchParams({ scope: 'read:basic read:hierarchy' }),
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('read:basic read:hierarchy');
    expect(tokens.hasError).toBe(false);

    const infoResponse = await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL(`${t.authUrl}/oauth/api-info`),
      undefined,
      undefined,
      insecure,
    );
    expect(infoResponse.status).toBe(200);
    const info = (await infoResponse.json()) as { apiUrl: string; organization: { id: string }; scopes: string[] };
    expect(info.organization.id).toBe(org.orgId);
    expect(info.apiUrl).toBe(t.regionUrl(org.region));
    expect(info.scopes.sort()).toEqual(['read:basic', 'read:hierarchy']);

    expect((await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'Library division' })).status).toBe(201);
    const browse = await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL(`${info.apiUrl}/v1/nodes/${info.organization.id}/browse`),
      undefined,
      undefined,
      insecure,
    );
    expect(browse.status).toBe(200);
    const divisions = (await browse.json()) as Array<{ name: string; type: string }>;
    expect(divisions.map((node) => [node.name, node.type])).toEqual([['Library division', 'division']]);
  });

  it('issues access tokens that verify against the published key set', async () => {
    const client: oauth.Client = { client_id: app.clientId };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(app.clientSecret),
      {},
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    const keys = createRemoteJWKSet(new URL(as.jwks_uri as string));
    const { payload } = await jwtVerify(tokens.access_token, keys, { issuer: as.issuer, audience: 'rdp-api' });
    expect(payload.org).toBe(org.orgId);
    expect(payload.client_id).toBe(app.clientId);
  });

  it('reports a wrong secret as a 401 invalid_client challenge', async () => {
    const client: oauth.Client = { client_id: app.clientId };
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('wrong'), {}, insecure);
    expect(response.status).toBe(401);
    const error = await oauth.processClientCredentialsResponse(as, client, response).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = error as oauth.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause[0]?.scheme).toBe('basic');
    expect(await challenge.response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('reports a scope outside the application as invalid_scope', async () => {
    const client: oauth.Client = { client_id: app.clientId };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(app.clientSecret),
      { scope: 'write:user' },
      insecure,
    );
    const error = await oauth.processClientCredentialsResponse(as, client, response).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect((error as oauth.ResponseBodyError).error).toBe('invalid_scope');
    expect((error as oauth.ResponseBodyError).status).toBe(400);
  });
});
