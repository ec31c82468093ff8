import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization, clientCredentialsToken, globalSnapshot, requestToken } from '../support/fixtures.js';
import { csrfOf, PageSession } from '../support/page-session.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/** The settings pages' refusals, through HTTP without a browser (the browser suite covers the rest). */
describe('settings pages over HTTP', () => {
  let t: TestPlatform;
  let orgA: string;
  let orgB: string;
  const password = 'correct horse battery';

  beforeAll(async () => {
    t = await startPlatform();
    orgA = (await t.admin.createOrganization({ name: 'Alpha', region: 'eu' })).id;
    orgB = (await t.admin.createOrganization({ name: 'Beta', region: 'us' })).id;
    await t.admin.createUser({ email: 'admin-a@example.com', password, orgId: orgA, orgAdmin: true });
    await t.admin.createUser({ email: 'member@example.com', password, orgId: orgA });
  });
  afterAll(async () => t?.close());

  function expectPageHeaders(headers: Headers) {
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(headers.get('cache-control')).toBe('no-store');
  }

  it('sends a visitor without a session to the sign-in page', async () => {
    const visitor = new PageSession(t);
    for (const path of ['/auth/settings/applications', `/auth/settings/applications/${orgA}`]) {
      const response = await visitor.get(path);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/auth/sign-in');
    }
    const posted = await visitor.post('/auth/settings/applications', { org: orgA, name: 'x' });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/auth/sign-in');
    const signInPage = await visitor.get('/auth/sign-in');
    expect(signInPage.status).toBe(200);
    expectPageHeaders(signInPage.headers);
  });

  it('refuses a sign-in without its CSRF token and a wrong password', async () => {
    const visitor = new PageSession(t);
    await visitor.get('/auth/sign-in');
    const noToken = await visitor.post('/auth/sign-in', { email: 'admin-a@example.com', password });
    expect(noToken.status).toBe(403);
    expect(visitor.cookie('rdp_session')).toBeUndefined();
    const wrong = await visitor.signIn('admin-a@example.com', 'not the password');
    expect(wrong.status).toBe(400);
    expect(visitor.cookie('rdp_session')).toBeUndefined();
    const right = await visitor.signIn('admin-a@example.com', password);
    expect(right).toEqual({ status: 303, location: '/auth/settings/applications' });
    expect(visitor.cookie('rdp_session')).toBeDefined();
  });

  it('refuses a member who administers no organization with 403 and a clear page', async () => {
    const member = new PageSession(t);
    expect((await member.signIn('member@example.com', password)).status).toBe(303);
    const response = await member.get('/auth/settings/applications');
    expect(response.status).toBe(403);
    expect(response.text).toContain('Only an administrator of an organization can manage its OAuth applications');
    expectPageHeaders(response.headers);
  });

  it('refuses a POST without the session CSRF token and stores nothing', async () => {
    const admin = new PageSession(t);
    await admin.signIn('admin-a@example.com', password);
    const before = await globalSnapshot(t);
    const form = { org: orgA, name: 'Forged', flow: 'client-credentials', secret: 'on', scopes: 'read:basic' };
    expect((await admin.post('/auth/settings/applications', form)).status).toBe(403);
    expect((await admin.post('/auth/settings/applications', { ...form, csrf: 'not-the-token' })).status).toBe(403);
    expect(await globalSnapshot(t)).toEqual(before);
  });

  it("refuses another organization's application and an organization the user does not administer", async () => {
    const other = await t.admin.createApplication({
      orgId: orgB,
      name: 'Beta app',
      flow: 'client-credentials',
      scopes: ['read:basic'],
    });
    const admin = new PageSession(t);
    await admin.signIn('admin-a@example.com', password);
    const list = await admin.get('/auth/settings/applications');
    const csrf = csrfOf(list.text);
    expect((await admin.get(`/auth/settings/applications/${other.clientId}`)).status).toBe(403);
    expect((await admin.get(`/auth/settings/applications?org=${orgB}`)).status).toBe(403);
    const before = await globalSnapshot(t);
    expect((await admin.post(`/auth/settings/applications/${other.clientId}/delete`, { csrf })).status).toBe(403);
    const create = { csrf, org: orgB, name: 'Sneaky', flow: 'client-credentials', secret: 'on', scopes: 'read:basic' };
    expect((await admin.post('/auth/settings/applications', create)).status).toBe(403);
    expect(await globalSnapshot(t)).toEqual(before);
    expect((await admin.get('/auth/settings/applications/no-such-client')).status).toBe(404);
  });

  it('re-renders a refused registration with the rule and status 400, storing nothing', async () => {
    const admin = new PageSession(t);
    await admin.signIn('admin-a@example.com', password);
    const csrf = csrfOf((await admin.get('/auth/settings/applications')).text);
    const before = await globalSnapshot(t);
    const base = { csrf, org: orgA, name: 'Web', flow: 'authorization-code', scopes: 'read:basic' };
    const cases: [string, string][] = [
      ['http://example.com/callback', 'must use HTTPS'],
      ['https://example.com/callback?x=1', 'must not have a query string'],
      ['https://example.com/callback#top', 'must not have a fragment'],
      ['https://intranet/callback', 'fully qualified domain name'],
    ];
    for (const [uri, message] of cases) {
      const response = await admin.post('/auth/settings/applications', { ...base, redirect_uris: uri });
      expect(response.status).toBe(400);
      expect(response.text).toContain(message);
      expectPageHeaders(response.headers);
    }
    const noScope = await admin.post('/auth/settings/applications', {
      csrf,
      org: orgA,
      name: 'Svc',
      flow: 'client-credentials',
      secret: 'on',
    });
    expect(noScope.status).toBe(400);
    expect(noScope.text).toContain('at least one scope is required');
    expect(await globalSnapshot(t)).toEqual(before);
  });

  async function signedInAdmin() {
    const admin = new PageSession(t);
    await admin.signIn('admin-a@example.com', password);
    return { admin, csrf: csrfOf((await admin.get('/auth/settings/applications')).text) };
  }

  it('escapes what an admin typed and registers a native application with a loopback redirect', async () => {
    const { admin, csrf } = await signedInAdmin();
    const created = await admin.post('/auth/settings/applications', {
      csrf,
      org: orgA,
      name: '<img src=x onerror=alert(1)>',
      flow: 'authorization-code',
      native: 'on',
      redirect_uris: 'http://127.0.0.1/callback',
      scopes: ['read:basic', 'manage:user'],
    });
    expect(created.status).toBe(303);
    const page = await admin.get(created.headers.get('location') as string);
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toContain('<img src=x');
    const clientId = /id="client-id">([^<]+)</.exec(page.text)?.[1] as string;
    const stored = (await globalSnapshot(t)).applications.find((app) => app.client_id === clientId);
    expect(stored).toMatchObject({ is_native: 1, scopes: 'read:basic write:user' });
  });

  it('issues a new secret once on request; the old one stops working', async () => {
    const created = await t.admin.createApplication({
      orgId: orgA,
      name: 'Rotating',
      flow: 'client-credentials',
      scopes: ['read:basic'],
    });
    const { admin, csrf } = await signedInAdmin();
    const path = `/auth/settings/applications/${created.clientId}`;
    const saved = await admin.post(path, { csrf, name: 'Rotating', scopes: 'read:basic', new_secret: 'on' });
    expect(saved.status).toBe(303);
    const shown = await admin.get(path);
    const secret = /id="new-client-secret">([^<]+)</.exec(shown.text)?.[1] as string;
    expect(secret).toBeDefined();
    expect((await admin.get(path)).text).not.toContain(secret);
    expect(await clientCredentialsToken(t, created.clientId, secret)).toBeTruthy();
    const old = await requestToken(
      t,
      { grant_type: 'client_credentials' },
      basicAuthorization(created.clientId, created.clientSecret as string),
    );
    expect(old.status).toBe(401);
  });

  it('refuses an edit that breaks a rule and changes nothing', async () => {
    const created = await t.admin.createApplication({
      orgId: orgA,
      name: 'Portal',
      flow: 'authorization-code',
      redirectUris: ['https://portal.example.com/cb'],
      scopes: ['read:basic'],
    });
    const { admin, csrf } = await signedInAdmin();
    const before = await globalSnapshot(t);
    const path = `/auth/settings/applications/${created.clientId}`;
    const refused = await admin.post(path, {
      csrf,
      name: 'Portal',
      redirect_uris: 'https://portal.example.com/cb#x',
      scopes: 'read:basic',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('must not have a fragment');
    expect(await globalSnapshot(t)).toEqual(before);
  });

  it("dropping a scope ends the application's earlier tokens; deleting ends every refresh token", async () => {
    const created = await t.admin.createApplication({
      orgId: orgA,
      name: 'Narrowed',
      flow: 'client-credentials',
      scopes: ['read:basic', 'read:user'],
    });
    const basic = basicAuthorization(created.clientId, created.clientSecret as string);
    const issue = async () => (await requestToken(t, { grant_type: 'client_credentials' }, basic)).body;
    const refreshWith = (token: string) => requestToken(t, { grant_type: 'refresh_token', refresh_token: token }, basic);
    const early = await issue();
    const apiInfo = (token: string) => fetch(`${t.authUrl}/oauth/api-info`, { headers: { authorization: `Bearer ${token}` } });
    expect((await apiInfo(early.access_token)).status).toBe(200);
    const { admin, csrf } = await signedInAdmin();
    const path = `/auth/settings/applications/${created.clientId}`;
    t.clock.advance(5);
    expect((await admin.post(path, { csrf, name: 'Narrowed', scopes: 'read:basic' })).status).toBe(303);
    t.clock.advance(1100); // past the verifier's one-second status cache
    expect((await apiInfo(early.access_token)).status).toBe(401);
    expect((await refreshWith(early.refresh_token)).body.error).toBe('invalid_grant');

    // Tokens issued after the change work, with the narrowed scopes, until the application is deleted.
    const later = await issue();
    expect(later.scope).toBe('read:basic');
    const rotated = await refreshWith(later.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await admin.post(`${path}/delete`, { csrf })).status).toBe(303);
    const afterDelete = await refreshWith(rotated.body.refresh_token);
    expect(afterDelete.status).toBe(401);
    expect(afterDelete.body.error).toBe('invalid_client');
    expect((await globalSnapshot(t)).applications.some((app) => app.client_id === created.clientId)).toBe(false);
    const user = await t.platform.directory.findUser(created.serviceUserId as string);
    expect(user?.deactivated_at).not.toBeNull();
  });

  it('signs out with a POST that answers 303', async () => {
    const admin = new PageSession(t);
    await admin.signIn('admin-a@example.com', password);
    const csrf = csrfOf((await admin.get('/auth/settings/applications')).text);
    const out = await admin.post('/auth/sign-out', { csrf });
    expect(out.status).toBe(303);
    expect((await admin.get('/auth/settings/applications')).status).toBe(303);
  });
});
