import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { ScimClient, userAccessToken } from '../support/scim.js';

/**
 * The People area's administration screens: custom roles (made on screen, given on a division
 * through the node's dialog, the member's access following it), SCIM tokens (the secret shown
 * once works on /scim/v2 until revoked) and deactivating a person (their token stops).
 */
describe('the web console: roles, SCIM tokens, deactivation', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let administrator: { id: string; email: string };
  let member: { id: string; email: string; password: string };
  let memberApi: ApiClient;
  let northId: string;

  const statusText = async () => (await page.locator('main [role=status]').allTextContents()).join('\n');
  // By address, so one case's failure (a dialog left open) does not stop the next.
  const section = async (path: string, title: string) => {
    await page.goto(`${t.origin}/console${path}`);
    await expect.poll(() => page.textContent('main h1')).toBe(title);
  };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startConsolePlatform({ env: { RDP_RATE_LIMIT_DISABLED: '1' } }), launchBrowser()]);
    org = await createOrg(t);
    const [admin, person] = await Promise.all([createMember(t, org, 'Organization Administrator'), createMember(t, org)]);
    [administrator, member] = [admin, person];
    northId = (await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'North' })).body.id;
    memberApi = new ApiClient(t.regionUrl(org.region), await userAccessToken(t, org, member));
    page = await freshPage(browser);
    await signIntoConsole(page, t, admin);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('makes a custom role, gives it on a division through Give a role, and the member can then do what it allows', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People' }).click();
    await page.getByRole('navigation', { name: 'People sections' }).getByRole('link', { name: 'Roles' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Roles');
    const table = page.getByRole('table', { name: 'Roles of the organization' });
    await expect.poll(() => table.textContent()).toMatch(/Organization AdministratorBuilt in/);
    expect(await table.getByRole('button', { name: 'Change the role Organization Administrator' }).count()).toBe(0);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'New role' }).click();
    const create = page.getByRole('dialog', { name: 'New role' });
    await create.getByLabel('Name', { exact: true }).fill('Surveyor');
    await create.getByLabel(/^Upload/).check();
    await expectAccessible(page);
    await create.getByRole('button', { name: 'Create role' }).click();
    await create.waitFor({ state: 'detached' });
    await expect.poll(() => statusText()).toContain('Role Surveyor created.');
    const made = ((await org.admin.get('/v1/roles')).body as { id: string; name: string }[]).find((r) => r.name === 'Surveyor');
    expect(made).toMatchObject({ kind: 'custom', permissions: ['read', 'upload'] });
    const roleId = made?.id as string;

    // A change of its permissions: download too.
    await table.getByRole('button', { name: 'Change the role Surveyor' }).click();
    const change = page.getByRole('dialog', { name: 'Change the role Surveyor' });
    await change.getByLabel(/^Download/).check();
    await change.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => statusText()).toContain('Role Surveyor saved.');
    await expect.poll(() => table.textContent()).toContain('read, download, upload');

    // The division's Give a role dialog offers the new role (read once per session, so this checks it is read again).
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('link', { name: 'North', exact: true }).click();
    const members = page.getByRole('region', { name: 'Members of North' });
    await members.getByRole('button', { name: 'Give a role' }).click();
    const grant = page.getByRole('dialog', { name: 'Give a role on North' });
    await grant.getByLabel('E-mail address').fill(member.email);
    await grant.getByLabel('Role', { exact: true }).selectOption({ label: 'Surveyor' });
    await grant.getByRole('button', { name: 'Give the role' }).click();
    await grant.waitFor({ state: 'detached' });
    await expect.poll(() => statusText()).toContain(`${member.email} now has the role Surveyor on North.`);
    expect((await org.admin.get(`/v1/nodes/${northId}/memberships`)).body).toEqual([
      expect.objectContaining({ principalId: member.id, principalType: 'user', roleId }),
    ]);
    const north = await memberApi.get(`/v1/nodes/${northId}`);
    expect(north).toMatchObject({ status: 200, body: { permissions: ['read', 'download', 'upload'] } });

    // Deleting a role still given: refused, in words; nothing changes.
    await section('/people/roles', 'Roles');
    await table.getByRole('button', { name: 'Delete the role Surveyor' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete the role Surveyor?' });
    await remove.getByRole('button', { name: 'Delete role' }).click();
    await expect.poll(() => remove.getByRole('alert').textContent()).toContain('still have this role');
    await expectAccessible(page);
    await remove.getByRole('button', { name: 'Cancel' }).click();
    expect(((await org.admin.get('/v1/roles')).body as { id: string }[]).some((r) => r.id === roleId)).toBe(true);
  });

  it('creates a SCIM token shown once, which the identity provider uses until it is revoked on screen', async () => {
    await section('/people/scim-tokens', 'SCIM tokens');
    await expect.poll(() => page.textContent('main')).toContain('There is no SCIM token.');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'New SCIM token' }).click();
    const create = page.getByRole('dialog', { name: 'New SCIM token' });
    await create.getByLabel('What it is for').fill('Entra ID');
    await create.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('dialog', { name: 'SCIM token Entra ID created' });
    const token = (await shown.getByTestId('scim-token').textContent()) as string;
    const scim = new ScimClient((await shown.getByTestId('scim-url').textContent()) as string, token);
    await shown.getByRole('button', { name: 'Copy the token' }).click();
    // Copied, or (a browser without clipboard permission) told to copy it by hand.
    await expect.poll(() => shown.getByRole('status').allTextContents()).toEqual(['', expect.stringMatching(/Copied|copy it/)]);
    await expectAccessible(page);
    await shown.getByRole('button', { name: 'Done' }).click();
    expect((await scim.get('/Users')).status).toBe(200);

    const table = page.getByRole('table', { name: 'SCIM tokens' });
    await expect.poll(() => table.textContent()).toContain('Entra ID');
    await table.getByRole('button', { name: 'Revoke the SCIM token Entra ID' }).click();
    await page.getByRole('dialog', { name: 'Revoke the SCIM token Entra ID?' }).getByRole('button', { name: 'Revoke' }).click();
    await expect
      .poll(() => statusText())
      .toContain('The SCIM token Entra ID is revoked; the identity provider using it is refused from now on.');
    expect((await scim.get('/Users')).status).toBe(401);
    expect((await org.admin.get('/v1/scim-tokens')).body).toEqual([]);
    await expectAccessible(page);
  });

  it('deactivates a person (their token stops), refuses to deactivate oneself in words, and reactivates them', async () => {
    await section('/people', 'People');
    const table = page.locator('table.people-table');
    await table.getByRole('button', { name: `Deactivate ${member.email}` }).click();
    const deactivate = page.getByRole('dialog', { name: `Deactivate ${member.email}?` });
    await expectAccessible(page);
    await deactivate.getByRole('button', { name: 'Deactivate' }).click();
    await deactivate.waitFor({ state: 'detached' });
    await expect.poll(() => statusText()).toContain(`${member.email} is deactivated: they can no longer use`);
    await expect.poll(() => table.getByRole('row').filter({ hasText: member.email }).textContent()).toContain('Deactivated');
    expect((await org.admin.get(`/v1/users/${member.id}`)).body).toMatchObject({ active: false });
    expect((await memberApi.get(`/v1/nodes/${northId}`)).status).toBe(401);

    await table.getByRole('button', { name: `Deactivate ${administrator.email}` }).click();
    const self = page.getByRole('dialog', { name: `Deactivate ${administrator.email}?` });
    await self.getByRole('button', { name: 'Deactivate' }).click();
    await expect
      .poll(() => self.getByRole('alert').textContent())
      .toBe('You cannot deactivate yourself. Another administrator can.');
    await self.getByRole('button', { name: 'Cancel' }).click();

    await table.getByRole('button', { name: `Reactivate ${member.email}` }).click();
    await page
      .getByRole('dialog', { name: `Reactivate ${member.email}?` })
      .getByRole('button', { name: 'Reactivate' })
      .click();
    await expect.poll(() => statusText()).toContain(`${member.email} is active again in`);
    expect((await org.admin.get(`/v1/users/${member.id}`)).body).toMatchObject({ active: true });
    await expectAccessible(page);
  });
});
