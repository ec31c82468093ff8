import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { ApiClient, createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import {
  authorizeWithForms,
  codeFrom,
  consentUrl,
  discover,
  exchangeCode,
  newPkce,
  registerCodeApp,
} from '../support/oauth-flow.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

/**
 * An invitation from end to end on the embedded default: invited through the API, its mail
 * read on the outbox page in Debian's chromium, the account created on the acceptance page,
 * and the role used with a token from the authorization-code flow.
 */
describe('accepting an invitation in a browser', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startPlatform(), launchBrowser()]);
    org = await createOrg(t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('invites, opens the mail in the outbox, creates the account, and the new user reads the node', async () => {
    const { divisionId } = await createTree(org);
    const email = 'grace.hopper@example.test';
    const password = 'a long enough password';
    const invited = await org.admin.post(`/v1/nodes/${divisionId}/invitations`, { email, roleId: org.roles.Viewer });
    expect(invited.status).toBe(201);

    const page = await (await browser.newContext()).newPage();
    const outbox = await page.goto(`${t.authUrl}/outbox`);
    expect(outbox?.status()).toBe(200);
    await expect(page.getByText(`To ${email}`).isVisible()).resolves.toBe(true);
    const link = page.locator('a[href*="/auth/invitations/"]').first();
    const [opened] = await Promise.all([page.waitForNavigation(), link.click()]);
    expect(opened?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toMatch(/^\/auth\/invitations\/[A-Za-z0-9_-]{43}$/);
    const facts = await page.locator('table').textContent();
    for (const text of ['Division', 'Viewer', email]) expect(facts).toContain(text);

    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel(/^Password/).fill(password);
    const [done] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Create account and accept' }).click(),
    ]);
    expect(done?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Welcome to');
    await page.context().close();

    // The new user through the real authorization-code flow: the role reaches the division.
    const app = await registerCodeApp(t, org);
    const pkce = await newPkce();
    const redirect = await authorizeWithForms(
      t,
      consentUrl(t, app, pkce),
      { email, password },
      { allow: true, orgId: org.orgId },
    );
    const code = codeFrom(await discover(t), app, redirect, pkce.state).get('code') as string;
    const tokens = await exchangeCode(t, app, code, pkce.verifier);
    expect(tokens.status).toBe(200);
    const asUser = new ApiClient(t.regionUrl(org.region), tokens.body.access_token);
    const division = await asUser.get(`/v1/nodes/${divisionId}`);
    expect(division.status).toBe(200);
    expect(division.body.id).toBe(divisionId);
    // The organization itself stays closed; browsing it answers only the way to the division
    // (docs/people.md, "Places").
    expect((await asUser.get(`/v1/nodes/${org.orgId}`)).status).toBe(403);
    const towards = await asUser.get(`/v1/nodes/${org.orgId}/browse`);
    expect(towards.status).toBe(200);
    expect(towards.body.map((node: { id: string }) => node.id)).toEqual([divisionId]);

    const [invitation] = (await org.admin.get(`/v1/invitations?nodeId=${divisionId}`)).body;
    expect(invitation).toMatchObject({ id: invited.body.id, state: 'accepted', acceptedAt: expect.any(String) });
    const info = await fetch(`${t.authUrl}/oauth/api-info`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    expect(((await info.json()) as { user: { id: string } }).user.id).toBe(invitation.acceptedBy);
  });
});
