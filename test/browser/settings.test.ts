import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { ApiClient, basicAuthorization, clientCredentialsToken, globalSnapshot, requestToken } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/** The settings area for third-party access, driven in Debian's chromium as an admin would. */
describe('settings pages in a browser', () => {
  let t: TestPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let orgId: string;
  let secondOrgId: string;
  const password = 'correct horse battery';

  beforeAll(async () => {
    t = await startPlatform();
    browser = await launchBrowser();
    orgId = (await t.admin.createOrganization({ name: 'Acme', region: 'eu' })).id;
    secondOrgId = (await t.admin.createOrganization({ name: 'Zenith', region: 'us' })).id;
    const adminUser = await t.admin.createUser({ email: 'admin@example.com', password, orgId, orgAdmin: true });
    await t.platform.directory.db
      .insertInto('user_organizations')
      .values({ user_id: adminUser.id, org_id: secondOrgId, is_admin: 1, created_at: new Date().toISOString() })
      .execute();
    await t.admin.createUser({ email: 'member@example.com', password, orgId });
    context = await browser.newContext();
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signIn(target: Page, email: string) {
    await target.goto(`${t.authUrl}/settings/applications`);
    expect(new URL(target.url()).pathname).toBe('/auth/sign-in');
    await target.getByLabel('E-mail').fill(email);
    await target.getByLabel('Password').fill(password);
    return Promise.all([target.waitForNavigation(), target.getByRole('button', { name: 'Sign in' }).click()]).then(([r]) => r);
  }

  async function register(fields: { name: string; flow: string; scopes: string[]; redirectUris?: string; secret?: boolean }) {
    await page.goto(`${t.authUrl}/settings/applications?org=${orgId}`);
    await page.getByLabel('Name', { exact: true }).fill(fields.name);
    await page.locator(`input[name=flow][value="${fields.flow}"]`).check();
    if (fields.redirectUris !== undefined) await page.getByLabel(/^Redirect URIs/).fill(fields.redirectUris);
    if (fields.secret === false) await page.locator('input[name=secret]').uncheck();
    for (const scope of fields.scopes) await page.locator(`input[name=scopes][value="${scope}"]`).check();
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Register' }).click()]);
    return response;
  }

  async function applicationRows() {
    return (await globalSnapshot(t)).applications.filter((app) => app.org_id === orgId);
  }

  it('signs an admin in and shows pages that refuse framing', async () => {
    const response = await signIn(page, 'admin@example.com');
    expect(new URL(page.url()).pathname).toBe('/auth/settings/applications');
    expect(response?.status()).toBe(200);
    const headers = response?.headers() ?? {};
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    // Admin of two organizations: a chooser lists both.
    await expect(page.getByRole('link', { name: 'Zenith' }).isVisible()).resolves.toBe(true);
    await page.getByRole('link', { name: 'Zenith' }).click();
    expect(new URL(page.url()).searchParams.get('org')).toBe(secondOrgId);
  });

  let serviceClientId: string;
  let serviceSecret: string;

  it('creates a client-credentials application and shows its secret once', async () => {
    const response = await register({
      name: 'Nightly sync',
      flow: 'client-credentials',
      scopes: ['read:basic', 'read:hierarchy'],
    });
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    serviceClientId = (await page.locator('#new-client-id').textContent()) ?? '';
    serviceSecret = (await page.locator('#new-client-secret').textContent()) ?? '';
    expect(serviceClientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(serviceSecret.length).toBeGreaterThan(20);

    await page.reload();
    expect(await page.locator('#new-client-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(serviceSecret);
    await page.goto(`${t.authUrl}/settings/applications?org=${orgId}`);
    expect(await page.content()).toContain(serviceClientId);
    await page.getByRole('link', { name: 'Nightly sync' }).click();
    expect(await page.locator('#client-id').textContent()).toBe(serviceClientId);
    expect(await page.content()).not.toContain(serviceSecret);
    const stored = (await applicationRows()).find((app) => app.client_id === serviceClientId);
    expect(stored?.secret_hash).not.toContain(serviceSecret);

    const token = await clientCredentialsToken(t, serviceClientId, serviceSecret);
    const info = await fetch(`${t.authUrl}/oauth/api-info`, { headers: { authorization: `Bearer ${token}` } });
    expect(info.status).toBe(200);
    expect(((await info.json()) as { scopes: string[] }).scopes.sort()).toEqual(['read:basic', 'read:hierarchy']);
  });

  it('creates an authorization-code application with an HTTPS redirect', async () => {
    await register({
      name: 'Web portal',
      flow: 'authorization-code',
      redirectUris: 'https://portal.example.com/callback',
      secret: false,
      scopes: ['read:basic'],
    });
    expect(await page.locator('#new-client-secret').count()).toBe(0);
    const clientId = (await page.locator('#client-id').textContent()) ?? '';
    const stored = (await applicationRows()).find((app) => app.client_id === clientId);
    expect(stored).toMatchObject({ flow: 'authorization-code', secret_hash: null, is_native: 0 });
    expect(JSON.parse(stored?.redirect_uris ?? '[]')).toEqual(['https://portal.example.com/callback']);
  });

  it('refuses invalid redirect URIs with a visible message and stores nothing', async () => {
    const before = await globalSnapshot(t);
    const cases: [string, string][] = [
      ['http://example.com/callback', 'must use HTTPS'],
      ['https://example.com/callback?next=1', 'must not have a query string'],
      ['https://example.com/callback#done', 'must not have a fragment'],
      ['https://localhost/callback', 'fully qualified domain name'],
    ];
    for (const [uri, message] of cases) {
      const response = await register({ name: 'Bad', flow: 'authorization-code', redirectUris: uri, scopes: ['read:basic'] });
      expect(response?.status()).toBe(400);
      const alert = page.getByRole('alert');
      expect(await alert.isVisible()).toBe(true);
      expect(await alert.textContent()).toContain(message);
      // The refused form keeps what was typed.
      expect(await page.getByLabel(/^Redirect URIs/).inputValue()).toBe(uri);
    }
    expect(await globalSnapshot(t)).toEqual(before);
  });

  it("edits an application's scopes", async () => {
    await page.goto(`${t.authUrl}/settings/applications/${serviceClientId}`);
    await page.locator('input[name=scopes][value="read:hierarchy"]').uncheck();
    await page.locator('input[name=scopes][value="write:user"]').check();
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save' }).click()]);
    expect(response?.status()).toBe(200);
    expect(await page.locator('input[name=scopes][value="write:user"]').isChecked()).toBe(true);
    expect(await page.locator('input[name=scopes][value="read:hierarchy"]').isChecked()).toBe(false);
    const stored = (await applicationRows()).find((app) => app.client_id === serviceClientId);
    expect(stored?.scopes.split(' ').sort()).toEqual(['read:basic', 'write:user']);
    const token = await requestToken(
      t,
      { grant_type: 'client_credentials', scope: 'read:hierarchy' },
      basicAuthorization(serviceClientId, serviceSecret),
    );
    expect(token.body.error).toBe('invalid_scope');
  });

  it('saves an application that still carries a deprecated scope, under its new name', async () => {
    await t.platform.directory.db
      .updateTable('oauth_applications')
      .set({ scopes: 'read:basic manage:hierarchy' })
      .where('client_id', '=', serviceClientId)
      .execute();
    await page.goto(`${t.authUrl}/settings/applications/${serviceClientId}`);
    const deprecated = page.getByLabel(/manage:hierarchy \(deprecated: saved as write:hierarchy\)/);
    expect(await deprecated.isChecked()).toBe(true);
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save' }).click()]);
    expect(response?.status()).toBe(200);
    expect(await page.getByRole('alert').count()).toBe(0);
    const stored = (await applicationRows()).find((app) => app.client_id === serviceClientId);
    expect(stored?.scopes.split(' ').sort()).toEqual(['read:basic', 'write:hierarchy']);
  });

  it('deletes an application: its token is refused within a second and its secret no longer works', async () => {
    const app = (await applicationRows()).find((row) => row.client_id === serviceClientId);
    const roles = await t.admin.listRoles(orgId);
    const roleId = roles.find((role) => role.name === 'Organization Administrator')?.id as string;
    await t.admin.grantMembership({ nodeId: orgId, principalId: app?.service_user_id as string, roleId });
    const basic = basicAuthorization(serviceClientId, serviceSecret);
    const issued = (await requestToken(t, { grant_type: 'client_credentials' }, basic)).body;
    const api = new ApiClient(t.regionUrl('eu'), issued.access_token);
    // The application now holds write:hierarchy (the previous test): a division is a cheap call that needs it.
    const createDivision = () => api.post(`/v1/nodes/${orgId}/division`, { name: `Division ${Date.now()}` });
    const first = await createDivision();
    expect(first.status, JSON.stringify(first.body)).toBe(201);

    await page.goto(`${t.authUrl}/settings/applications/${serviceClientId}`);
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Delete application' }).click(),
    ]);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/auth/settings/applications');
    expect(await page.content()).not.toContain(serviceClientId);

    const deletedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - deletedAt < 3000) {
      status = (await createDivision()).status;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(401);
    expect(Date.now() - deletedAt).toBeLessThan(1500);
    const again = await requestToken(t, { grant_type: 'client_credentials' }, basic);
    expect(again.status).toBe(401);
    const refreshed = await requestToken(t, { grant_type: 'refresh_token', refresh_token: issued.refresh_token }, basic);
    expect(refreshed.status).toBe(401);
    expect(refreshed.body.error).toBe('invalid_client');
  });

  it('refuses a member who is not an organization admin', async () => {
    const memberContext = await browser.newContext();
    const memberPage = await memberContext.newPage();
    const response = await signIn(memberPage, 'member@example.com');
    expect(response?.status()).toBe(403);
    expect(await memberPage.getByRole('heading', { name: 'Not an organization administrator' }).isVisible()).toBe(true);
    await memberContext.close();
  });

  it("refuses a POST without the CSRF token, even with the admin's session cookie", async () => {
    const session = (await context.cookies()).find((cookie) => cookie.name === 'rdp_session');
    expect(session).toBeDefined();
    const before = await globalSnapshot(t);
    const response = await fetch(`${t.authUrl}/settings/applications`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `rdp_session=${session?.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ org: orgId, name: 'Forged', flow: 'client-credentials', secret: 'on', scopes: 'read:basic' }),
    });
    expect(response.status).toBe(403);
    expect(await globalSnapshot(t)).toEqual(before);
  });
});
