import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { linkMailedTo } from '../support/invitations.js';
import { createMember, registerCodeApp } from '../support/oauth-flow.js';
import { PERSON_SCOPES, personTokens } from '../support/people-users.js';
import type { TestPlatform } from '../support/platform.js';

/**
 * Places in the console (issue 27, docs/console.md "Data"): a person invited to a division only
 * starts on their places instead of a refusal, follows them to the division and its site, and
 * sees no write control; a person without any role is told so in words; everyone else reaches
 * their places from the organization's screen.
 */
describe('the web console: places', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let orgName: string;
  let browser: Browser;
  let northId: string;
  const invitee = { email: `grace-${randomUUID().slice(0, 8)}@example.test`, password: 'a long enough password' };
  const WRITE_CONTROLS = /^(New (division|site|folder)|Rename|Move|Move to trash|Give a role|Take away.*|Invite.*)$/;

  /** The places table's rows as words: name, kind and role (the kinds' icons are hidden from assistive technology, and from here). */
  const placeRows = (page: Page) =>
    page
      .getByRole('table', { name: 'Where you hold a role' })
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => {
          const words = row.cloneNode(true) as HTMLElement;
          for (const hidden of words.querySelectorAll('[aria-hidden=true]')) hidden.remove();
          return [...words.children].map((cell) => cell.textContent).join(' | ');
        }),
      );

  beforeAll(async () => {
    [t, browser] = await Promise.all([startConsolePlatform({ env: { RDP_RATE_LIMIT_DISABLED: '1' } }), launchBrowser()]);
    org = await createOrg(t);
    orgName = (await org.admin.get(`/v1/nodes/${org.orgId}`)).body.name;
    northId = (await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'North' })).body.id;
    const south = (await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'South' })).body.id;
    expect((await org.admin.post(`/v1/nodes/${northId}/site`, { name: 'Quay', address: '1 Harbour Lane' })).status).toBe(201);
    expect((await org.admin.post(`/v1/nodes/${south}/site`, { name: 'Dock', address: '3 Pier Road' })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('starts a Viewer invited to one division on their places: the division, its site, no write control', async () => {
    const invited = await org.admin.post(`/v1/nodes/${northId}/invitations`, { email: invitee.email, roleId: org.roles.Viewer });
    expect(invited.status).toBe(201);

    const page = await freshPage(browser);
    await page.goto(await linkMailedTo(t, invitee.email));
    await page.fill('#first_name', 'Grace');
    await page.fill('#last_name', 'Hopper');
    await page.fill('#password', invitee.password);
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'Open the console' }).click();
    await page.waitForURL(/\/auth\/consent\?/);
    await page.click('button[value=allow]');
    await page.waitForURL((url) => url.pathname.startsWith('/console') && !url.pathname.startsWith('/console/callback'));

    // The first screen: their one place with its role, not the organization's refusal.
    await expect.poll(() => page.textContent('main h1')).toBe('Your places');
    await expect.poll(() => placeRows(page)).toEqual(['North | Division | Viewer']);
    expect(await page.locator('main [role=alert]').count()).toBe(0);
    expect(await page.textContent('main')).not.toContain('Forbidden');
    expect(await page.getByRole('button', { name: WRITE_CONTROLS }).count()).toBe(0);
    await expectAccessible(page);

    // The API lists exactly that division.
    const app = await registerCodeApp(t, org, { scopes: PERSON_SCOPES });
    const tokens = await personTokens(t, org, app, invitee);
    const places = await new ApiClient(t.regionUrl(org.region), tokens.access_token).get('/v1/users/me/places');
    expect(places.status).toBe(200);
    expect(places.body).toMatchObject({
      items: [{ node: { id: northId, name: 'North', type: 'division' }, roleId: org.roles.Viewer, roleName: 'Viewer' }],
      total: 1,
    });

    await page.getByRole('link', { name: 'North' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('North');
    await expect.poll(() => page.getByRole('link', { name: 'Quay' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Dock' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: WRITE_CONTROLS }).count()).toBe(0);
    // The path starts at their place, after the way back to their places.
    const crumbs = () =>
      page
        .getByRole('navigation', { name: 'Breadcrumb' })
        .locator('li')
        .evaluateAll((items) =>
          items.map((item) => {
            const words = item.cloneNode(true) as HTMLElement;
            for (const hidden of words.querySelectorAll('[aria-hidden=true]')) hidden.remove();
            return words.textContent;
          }),
        );
    await expect.poll(crumbs).toEqual(['Your places', 'North']);
    await page.getByRole('link', { name: 'Quay' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Quay');
    await expect.poll(crumbs).toEqual(['Your places', 'North', 'Quay']);
    expect(await page.textContent('main .node-facts')).toContain('1 Harbour Lane');
    expect(await page.getByRole('button', { name: WRITE_CONTROLS }).count()).toBe(0);
    expect(await page.locator('main [role=alert]').count()).toBe(0);

    // The brand leads back to the first screen: their places again.
    await page.getByRole('link', { name: 'Reality Data Platform' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Your places');
    await page.context().close();
  });

  it('tells a person with no role anywhere so, and whom to ask, in words', async () => {
    const nobody = await createMember(t, org);
    const page = await freshPage(browser);
    await signIntoConsole(page, t, nobody);
    await expect.poll(() => page.textContent('main h1')).toBe('Your places');
    await expect
      .poll(() => page.textContent('main p'))
      .toBe(
        `You hold no role anywhere in ${orgName} yet. Ask an administrator of your organization, or whoever invited you, to give you a role on a division or site.`,
      );
    expect(await page.locator('main [role=alert]').count()).toBe(0);
    await expectAccessible(page);
    await page.context().close();
  });

  it('shows whoever may browse the organization its tree, with their places one link away', async () => {
    const administrator = await createMember(t, org, 'Organization Administrator');
    const page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
    await expect.poll(() => page.textContent('main h1')).toBe(orgName);
    await expect.poll(() => page.getByRole('link', { name: 'North' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Your places and roles' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Your places');
    await expect.poll(() => placeRows(page)).toEqual([`${orgName} | Organization | Organization Administrator`]);
    expect(
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Data', exact: true })
        .getAttribute('aria-current'),
    ).toBe('page');
    await expectAccessible(page);
    await page.context().close();
  });
});
