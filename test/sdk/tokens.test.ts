import {
  AuthorizationDeniedError,
  authorizationUrl,
  ClientCredentials,
  codeFromRedirect,
  connect,
  createPkce,
  exchangeCode,
  ok,
  pkceChallenge,
  RdpApiError,
  RefreshingTokens,
  signInWithBrowser,
  type TokenSet,
} from '@reality-data-platform/sdk';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { authorizeWithForms, createMember, registerCodeApp } from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const ACCESS_TTL_SECONDS = 10;

/** A fetch that counts the requests to the token endpoint by grant type. */
function countingTokenFetch(grants: string[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.url.endsWith('/oauth/token'))
      grants.push(new URLSearchParams(await request.clone().text()).get('grant_type') ?? '');
    return fetch(request);
  };
}

describe('SDK tokens: PKCE through the consent page, refresh on 401', () => {
  let t: TestPlatform;
  let org: OrgFixture;

  beforeAll(async () => {
    // Access tokens live 10 seconds; the platform's clock is moved past that to make calls answer 401.
    t = await startPlatform({ RDP_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TTL_SECONDS) });
    org = await createOrg(t);
  });
  afterAll(() => t?.close());

  it('makes an S256 challenge of 43 base64url characters from a fresh verifier', async () => {
    const pkce = createPkce();
    expect(pkce.verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(pkce.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The same challenge as an independent implementation (oauth4webapi) makes.
    expect(pkce.challenge).toBe(await oauth.calculatePKCECodeChallenge(pkce.verifier));
    expect(pkceChallenge('a'.repeat(43))).toBe(await oauth.calculatePKCECodeChallenge('a'.repeat(43)));
    expect(createPkce().state).not.toBe(pkce.state);
  });

  it('signs in with PKCE on a loopback redirect, then refreshes once when many calls meet 401 at once', async () => {
    const app = await registerCodeApp(t, org, { native: true, redirectUris: ['http://127.0.0.1/callback'] });
    const member = await createMember(t, org, 'Organization Administrator');
    const pkce = createPkce();
    const redirectUri = 'http://127.0.0.1:53682/callback';
    const scopes = ['read:basic', 'read:hierarchy', 'write:hierarchy'];
    const url = authorizationUrl({ authUrl: t.authUrl, clientId: app.clientId, redirectUri, scopes, pkce });
    const redirect = await authorizeWithForms(t, url, member, { allow: true, orgId: org.orgId });
    expect(`${redirect.origin}${redirect.pathname}`).toBe(redirectUri);
    const code = codeFromRedirect(redirect, pkce.state);
    const grants: string[] = [];
    const tokenSet = await exchangeCode({
      authUrl: t.authUrl,
      clientId: app.clientId,
      code,
      redirectUri,
      verifier: pkce.verifier,
      fetch: countingTokenFetch(grants),
    });
    expect(tokenSet.refreshToken).toEqual(expect.any(String));
    expect(tokenSet.accessTokenExpiresAt).toBeGreaterThan(Date.now());

    const stored: TokenSet[] = [];
    const tokens = new RefreshingTokens({
      authUrl: t.authUrl,
      clientId: app.clientId,
      tokens: tokenSet,
      onTokens: (fresh) => {
        stored.push(fresh);
      },
      fetch: countingTokenFetch(grants),
    });
    const rdp = await connect({ authUrl: t.authUrl, tokens });
    expect(rdp.apiInfo.user.email).toBe(member.email);
    expect(rdp.apiInfo.scopes.sort()).toEqual(scopes);

    // The server's clock passes the access token's expiry; the SDK's own clock has not, so it
    // sends the old token, meets 401 on all five calls, and refreshes once for all of them.
    t.clock.advance((ACCESS_TTL_SECONDS + 5) * 1000);
    const names = ['A', 'B', 'C', 'D', 'E'];
    const created = await Promise.all(
      names.map((name) =>
        ok(rdp.api.POST('/v1/nodes/{parentId}/division', { params: { path: { parentId: rdp.organizationId } }, body: { name } })),
      ),
    );
    expect(created.map((division) => division.name)).toEqual(names);
    expect(grants).toEqual(['authorization_code', 'refresh_token']);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.refreshToken).not.toBe(tokenSet.refreshToken);
    expect(tokens.tokens?.accessToken).toBe(stored[0]?.accessToken);

    // The refresh token rotated: the first one is spent, and a source holding it must sign in again.
    const stale = new RefreshingTokens({
      authUrl: t.authUrl,
      clientId: app.clientId,
      tokens: { ...tokenSet, accessTokenExpiresAt: 0 },
    });
    const refused = await stale.getAccessToken().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RdpApiError);
    expect((refused as RdpApiError).error).toBe('invalid_grant');
  });

  it('signs in as a native application would: a loopback listener, the browser, the exchange', async () => {
    const app = await registerCodeApp(t, org, { native: true, redirectUris: ['http://127.0.0.1/callback'] });
    const member = await createMember(t, org, 'Organization Reader');
    let page = '';
    const tokenSet = await signInWithBrowser({
      authUrl: t.authUrl,
      clientId: app.clientId,
      scopes: ['read:basic', 'read:hierarchy'],
      // The "browser": signs in and allows on the consent page, then follows the redirect to the listener.
      openBrowser: async (url) => {
        const redirect = await authorizeWithForms(t, url, member, { allow: true, orgId: org.orgId });
        expect(redirect.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
        page = await (await fetch(redirect)).text();
      },
    });
    expect(page).toContain('Signed in');
    const rdp = await connect({
      authUrl: t.authUrl,
      tokens: new RefreshingTokens({ authUrl: t.authUrl, clientId: app.clientId, tokens: tokenSet }),
    });
    expect(rdp.apiInfo.user.email).toBe(member.email);

    // A denial comes back as AuthorizationDeniedError.
    const denied = await signInWithBrowser({
      authUrl: t.authUrl,
      clientId: app.clientId,
      scopes: ['read:basic'],
      openBrowser: async (url) => {
        await fetch(await authorizeWithForms(t, url, member, { allow: false, orgId: org.orgId }));
      },
    }).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(AuthorizationDeniedError);
    expect((denied as AuthorizationDeniedError).error).toBe('access_denied');
  });

  it('tells a denied sign-in and a forged state apart from a code', async () => {
    const pkce = createPkce();
    expect(() => codeFromRedirect(`http://127.0.0.1:1/callback?error=access_denied&state=${pkce.state}`, pkce.state)).toThrow(
      AuthorizationDeniedError,
    );
    expect(() => codeFromRedirect('http://127.0.0.1:1/callback?code=abc&state=other', pkce.state)).toThrow(/state/);
    expect(codeFromRedirect(`http://127.0.0.1:1/callback?code=abc&state=${pkce.state}`, pkce.state)).toBe('abc');
  });

  it('client credentials: cached while valid, fetched again the same way after a 401', async () => {
    const app = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Service',
      flow: 'client-credentials',
      scopes: ['read:basic', 'read:hierarchy'],
    });
    await t.admin.grantMembership({
      nodeId: org.orgId,
      principalId: app.serviceUserId as string,
      roleId: org.roles['Organization Reader'] as string,
    });
    const grants: string[] = [];
    const tokens = new ClientCredentials({
      authUrl: t.authUrl,
      clientId: app.clientId,
      clientSecret: app.clientSecret as string,
      fetch: countingTokenFetch(grants),
    });
    const rdp = await connect({ authUrl: t.authUrl, tokens });
    const browse = () =>
      ok(rdp.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId: rdp.organizationId }, query: { limit: 10 } } }));
    await browse();
    await browse();
    expect(grants).toEqual(['client_credentials']);
    t.clock.advance((ACCESS_TTL_SECONDS + 5) * 1000);
    await Promise.all([browse(), browse(), browse()]);
    expect(grants).toEqual(['client_credentials', 'client_credentials']);

    // Fewer scopes than the application has, when asked; one it lacks is invalid_scope.
    const narrow = new ClientCredentials({
      authUrl: t.authUrl,
      clientId: app.clientId,
      clientSecret: app.clientSecret as string,
      scopes: ['read:basic'],
    });
    expect((await connect({ authUrl: t.authUrl, tokens: narrow })).apiInfo.scopes).toEqual(['read:basic']);
    const greedy = new ClientCredentials({
      authUrl: t.authUrl,
      clientId: app.clientId,
      clientSecret: app.clientSecret as string,
      scopes: ['write:user'],
    });
    await expect(greedy.getAccessToken()).rejects.toMatchObject({ status: 400, error: 'invalid_scope' });

    // Wrong credentials: 401 invalid_client from the token endpoint, as an RdpApiError.
    const wrong = new ClientCredentials({ authUrl: t.authUrl, clientId: app.clientId, clientSecret: 'not the secret' });
    await expect(wrong.getAccessToken()).rejects.toMatchObject({ status: 401, error: 'invalid_client' });
  });
});
