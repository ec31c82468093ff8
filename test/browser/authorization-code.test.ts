import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import {
  type CodeApp,
  consentUrl,
  createMember,
  discover,
  insecure,
  newPkce,
  type Pkce,
  REDIRECT_URI,
  registerCodeApp,
} from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/** The whole PKCE flow: oauth4webapi as the client, Debian's chromium as the user's browser. */
describe('authorization code with PKCE in a real browser', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let app: CodeApp;
  let as: oauth.AuthorizationServer;
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startPlatform(), launchBrowser()]);
    org = await createOrg(t);
    app = await registerCodeApp(t, org);
    as = await discover(t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh browser context whose navigations to the app's callback are caught, not fetched. */
  async function userAgent(): Promise<{ page: Page; callback: Promise<URL> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const callback = new Promise<URL>((resolve) => {
      void page.route(`${new URL(REDIRECT_URI).origin}/**`, async (route) => {
        resolve(new URL(route.request().url()));
        await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Signed in</p>' });
      });
    });
    return { page, callback };
  }

  async function signIn(page: Page, url: string, user: { email: string; password: string }) {
    await page.goto(url);
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([page.waitForURL(/\/auth\/consent\?/), page.click('button[type=submit]')]);
    await page.waitForSelector('button[value=allow]');
  }

  it('discovers the authorization endpoint, PKCE S256 and the grants (RFC 8414)', () => {
    expect(as.authorization_endpoint).toBe(`${t.authUrl}/consent`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(as.token_endpoint_auth_methods_supported).toContain('none');
  });

  /** What the client does with the redirect: check it (state included) and exchange the code as a public client. */
  async function exchange(redirect: URL, pkce: Pkce) {
    const client: oauth.Client = { client_id: app.clientId };
    const params = oauth.validateAuthResponse(as, client, redirect, pkce.state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      REDIRECT_URI,
      pkce.verifier,
      insecure,
    );
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  it('signs in, picks the organization, approves, and the client browses as that user', async () => {
    const user = await createMember(t, org, 'Organization Administrator');
    const otherOrg = await createOrg(t);
    await t.platform.stores.global.db
      .insertInto('user_organizations')
      .values({ user_id: user.id, org_id: otherOrg.orgId, is_admin: 0, created_at: new Date().toISOString() })
      .execute();
    const pkce = await newPkce();
    const { page, callback } = await userAgent();

    await signIn(page, consentUrl(t, app, pkce), user);
    expect(await page.locator('#org_id option').count()).toBe(2);
    await page.selectOption('#org_id', org.orgId);
    expect(await page.locator('input[name=scopes]:checked').count()).toBe(2);
    await page.click('button[value=allow]');
    const redirect = await callback;
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);

    const tokens = await exchange(redirect, pkce);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('read:basic read:hierarchy');
    expect(typeof tokens.refresh_token).toBe('string');

    const api = new ApiClient(t.regionUrl(org.region), tokens.access_token);
    const browse = await api.get(`/v1/nodes/${org.orgId}/browse`);
    expect(browse.status).toBe(200);
    const info = await fetch(`${t.authUrl}/oauth/api-info`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const body = (await info.json()) as { user: { id: string }; organization: { id: string }; scopes: string[] };
    expect(body.user.id).toBe(user.id);
    expect(body.organization.id).toBe(org.orgId);
    // read:basic and read:hierarchy were approved; write:hierarchy was not asked for.
    expect((await api.post(`/v1/nodes/${org.orgId}/division`, { name: 'Nope' })).status).toBe(403);
    await page.context().close();
  });

  it('gives a user without a role a token that is refused on the organization (403)', async () => {
    const user = await createMember(t, org);
    const pkce = await newPkce();
    const { page, callback } = await userAgent();
    await signIn(page, consentUrl(t, app, pkce), user);
    await page.click('button[value=allow]');
    const tokens = await exchange(await callback, pkce);
    const browse = await new ApiClient(t.regionUrl(org.region), tokens.access_token).get(`/v1/nodes/${org.orgId}/browse`);
    expect(browse.status).toBe(403);
    await page.context().close();
  });

  it('approves only the scopes left checked', async () => {
    const user = await createMember(t, org, 'Organization Administrator');
    const pkce = await newPkce();
    const { page, callback } = await userAgent();
    await signIn(page, consentUrl(t, app, pkce, {}, ['read:basic', 'read:hierarchy', 'write:hierarchy']), user);
    await page.uncheck('input[name=scopes][value="write:hierarchy"]');
    await page.click('button[value=allow]');
    const tokens = await exchange(await callback, pkce);
    expect(tokens.scope).toBe('read:basic read:hierarchy');
    await page.context().close();
  });

  it('redirects a denial with error=access_denied and the state', async () => {
    const user = await createMember(t, org);
    const pkce = await newPkce();
    const { page, callback } = await userAgent();
    await signIn(page, consentUrl(t, app, pkce), user);
    await page.click('button[value=deny]');
    const redirect = await callback;
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe(pkce.state);
    expect(redirect.searchParams.get('code')).toBeNull();
    expect(() => oauth.validateAuthResponse(as, { client_id: app.clientId }, redirect, pkce.state)).toThrow(
      oauth.AuthorizationResponseError,
    );
    await page.context().close();
  });

  it('shows the sign-in form again after a wrong password, without a session', async () => {
    const user = await createMember(t, org);
    const { page } = await userAgent();
    await page.goto(consentUrl(t, app, await newPkce()));
    await page.fill('#email', user.email);
    await page.fill('#password', 'wrong password');
    await Promise.all([page.waitForURL(/\/auth\/consent\?/), page.click('button[type=submit]')]);
    expect(await page.textContent('[role=alert]')).toContain('not correct');
    expect(await page.locator('#password').count()).toBe(1);
    expect((await page.context().cookies()).some((cookie) => cookie.name === 'rdp_session')).toBe(false);
    await page.context().close();
  });
});
