import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { linkMailedTo } from '../support/invitations.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';

/**
 * People in the console: an administrator invites someone, who accepts through the mailed link
 * and lands in the console signed in; groups, roles on a division, the audit trail in words; a
 * person who does not administer people sees none of it.
 */
describe('the web console: people', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let orgName: string;
  let browser: Browser;
  let page: Page;
  let reader: { email: string; password: string };
  let northId: string;
  const invitee = { email: `ada-${randomUUID().slice(0, 8)}@example.test`, password: 'a long enough password' };
  let inviteeId: string;
  let groupId: string;

  const statusText = (target: Page) => target.locator('main [role=status]').allTextContents();

  beforeAll(async () => {
    [t, browser] = await Promise.all([startConsolePlatform({ env: { RDP_RATE_LIMIT_DISABLED: '1' } }), launchBrowser()]);
    org = await createOrg(t);
    orgName = (await org.admin.get(`/v1/nodes/${org.orgId}`)).body.name;
    const [administrator, readerPerson] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
    ]);
    reader = readerPerson;
    const north = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'North' });
    northId = north.body.id;
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('invites someone by e-mail, who accepts through the mailed link and lands in the console signed in', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('People');
    await expect.poll(() => page.locator('table.people-table tbody tr').count()).toBeGreaterThan(1);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Invite someone' }).click();
    const dialog = page.getByRole('dialog', { name: `Invite someone to ${orgName}` });
    await dialog.getByLabel('E-mail address').fill(invitee.email);
    await dialog.getByLabel('Role').selectOption({ label: 'Viewer' });
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => statusText(page)).toContain(`Invitation sent to ${invitee.email}.`);
    const pending = (await org.admin.get('/v1/invitations?state=pending')).body as {
      email: string;
      nodeId: string;
      roleId: string;
    }[];
    expect(pending).toEqual([expect.objectContaining({ email: invitee.email, nodeId: org.orgId, roleId: org.roles.Viewer })]);
    await expect
      .poll(() => page.getByRole('table', { name: 'Pending invitations' }).textContent())
      .toMatch(new RegExp(`${invitee.email}.*${orgName}.*Viewer`));

    // The invited person, in a browser of their own: the mail's link, the page's form, then the console.
    const theirs = await freshPage(browser);
    await theirs.goto(await linkMailedTo(t, invitee.email));
    await theirs.fill('#first_name', 'Ada');
    await theirs.fill('#last_name', 'Lovelace');
    await theirs.fill('#password', invitee.password);
    await theirs.click('button[type=submit]');
    await theirs.getByRole('link', { name: 'Open the console' }).click();
    // Signed in by the acceptance: the console's sign-in asks only for consent, no password again.
    await theirs.waitForURL(/\/auth\/consent\?/);
    await theirs.click('button[value=allow]');
    await theirs.waitForURL((url) => url.pathname.startsWith('/console') && !url.pathname.startsWith('/console/callback'));
    await expect.poll(() => theirs.textContent('.top-bar .person')).toBe(invitee.email);
    await expect.poll(() => theirs.textContent('main h1')).toBe(orgName);
    const users = (await org.admin.get(`/v1/users?email=${encodeURIComponent(invitee.email)}`)).body as { id: string }[];
    inviteeId = users[0]?.id as string;
    expect(users).toEqual([expect.objectContaining({ firstName: 'Ada', lastName: 'Lovelace', active: true })]);
    expect((await org.admin.get('/v1/invitations?state=pending')).body).toEqual([]);
    // A Viewer of the organization administers no people: no People entry, no members panel.
    expect(await theirs.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).toEqual([
      'Data',
      'Trash',
      'Library',
    ]);
    await theirs.context().close();
  });

  it('creates a group, adds the person, renames it and gives it a role on a division; the API holds them', async () => {
    await page.getByRole('navigation', { name: 'People sections' }).getByRole('link', { name: 'Groups' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Groups');
    await page.getByRole('button', { name: 'New group' }).click();
    const create = page.getByRole('dialog', { name: 'New group' });
    await create.getByLabel('Name').fill('Surveyors');
    await create.getByLabel('Belongs to').selectOption({ label: 'Division North' });
    await create.getByRole('button', { name: 'Create group' }).click();
    await create.waitFor({ state: 'detached' });
    await expect.poll(() => statusText(page)).toContain('Group Surveyors created.');
    const found = (await org.admin.get('/v1/groups?name=Surveyors')).body as { id: string; divisionId: string }[];
    expect(found).toEqual([expect.objectContaining({ divisionId: northId })]);
    groupId = found[0]?.id as string;
    await expectAccessible(page);

    await page.getByRole('link', { name: 'Surveyors', exact: true }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Group Surveyors');
    await page.getByLabel('Add a member by e-mail address').fill(invitee.email);
    await page.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(() => statusText(page)).toContain('Ada Lovelace added to Surveyors.');
    expect((await org.admin.get(`/v1/groups/${groupId}/users`)).body).toEqual([expect.objectContaining({ id: inviteeId })]);

    await page.getByRole('button', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename Surveyors' });
    await rename.getByLabel('Name').fill('Field surveyors');
    await rename.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Group Field surveyors');
    expect((await org.admin.get(`/v1/groups/${groupId}`)).body.name).toBe('Field surveyors');
    await expectAccessible(page);

    // The division's screen: who has which role there, and a role given to the group.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('link', { name: 'North', exact: true }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('North');
    const members = page.getByRole('region', { name: 'Members of North' });
    await expect.poll(() => members.textContent()).toContain('No role is given here itself.');
    await members.getByRole('button', { name: 'Give a role' }).click();
    const grant = page.getByRole('dialog', { name: 'Give a role on North' });
    await grant.getByLabel('A group').check();
    await grant.getByLabel('Group', { exact: true }).selectOption({ label: 'Field surveyors' });
    await grant.getByLabel('Role').selectOption({ label: 'Contributor' });
    await expectAccessible(page);
    await grant.getByRole('button', { name: 'Give the role' }).click();
    await grant.waitFor({ state: 'detached' });
    await expect.poll(() => statusText(page)).toContain('The group Field surveyors now has the role Contributor on North.');
    expect((await org.admin.get(`/v1/nodes/${northId}/memberships`)).body).toEqual([
      expect.objectContaining({ principalId: groupId, principalType: 'group', roleId: org.roles.Contributor }),
    ]);
    await expect.poll(() => members.getByRole('table').textContent()).toMatch(/Group Field surveyors\s*Contributor/);
    await expectAccessible(page);
  });

  it('shows the audit trail in words, filtered by what happened', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People' }).click();
    await page.getByRole('navigation', { name: 'People sections' }).getByRole('link', { name: 'Audit trail' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Audit trail');
    const rows = page.locator('table.audit tbody tr');
    // Names are read as the rows show; wait until none is still loading.
    const sentences = async () => {
      const texts = await rows.allTextContents();
      return texts.some((text) => text.includes('…')) ? [] : texts;
    };
    await expect
      .poll(async () => (await sentences()).join('\n'))
      .toMatch(new RegExp(`invited ${invitee.email} to ${orgName} as Viewer`));
    const all = (await sentences()).join('\n');
    expect(all).toContain(`Ada Lovelaceaccepted the invitation of ${invitee.email} to ${orgName} as Viewer`);
    expect(all).toContain('created the group Surveyors');
    expect(all).toContain('added Ada Lovelace to the group Field surveyors');
    expect(all).toContain('renamed the group Surveyors to Field surveyors');
    expect(all).toContain('gave the group Field surveyors the role Contributor on North');
    await expectAccessible(page);

    const events = (await org.admin.get('/v1/audit-events?action=membership.set')).body as { details: { principalId: string } }[];
    expect(events.some((event) => event.details.principalId === groupId)).toBe(true);
    await page.getByLabel('What happened').selectOption({ label: 'Roles given' });
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    // The filtered list, once shown in full: the roles given, and nothing else.
    await expect
      .poll(async () => {
        const shown = await sentences();
        return shown.length === events.length && shown.every((text) => /gave|changed the role/.test(text));
      })
      .toBe(true);
    expect((await sentences()).join('\n')).toContain('gave the group Field surveyors the role Contributor on North');
  });

  it('takes the role away, removes the member and deletes the group', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('link', { name: 'North', exact: true }).click();
    const members = page.getByRole('region', { name: 'Members of North' });
    await members.getByRole('button', { name: 'Take away the role of the group Field surveyors' }).click();
    await page
      .getByRole('dialog', { name: 'Take the role on North away from the group Field surveyors?' })
      .getByRole('button', { name: 'Take away' })
      .click();
    await expect.poll(() => statusText(page)).toContain('The group Field surveyors no longer has a role given on North.');
    expect((await org.admin.get(`/v1/nodes/${northId}/memberships`)).body).toEqual([]);

    await page.goto(`${t.origin}/console/people/groups/${groupId}`);
    await page.getByRole('button', { name: 'Remove Ada Lovelace from the group' }).click();
    await expect.poll(() => statusText(page)).toContain('Ada Lovelace removed from Field surveyors.');
    expect((await org.admin.get(`/v1/groups/${groupId}/users`)).body).toEqual([]);
    await page.getByRole('button', { name: 'Delete group' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the group Field surveyors?' })
      .getByRole('button', { name: 'Delete group' })
      .click();
    await expect.poll(() => page.textContent('main h1')).toBe('Groups');
    await expect.poll(() => statusText(page)).toContain('Group Field surveyors deleted.');
    expect((await org.admin.get(`/v1/groups/${groupId}`)).status).toBe(404);
  });

  it('shows a person who does not administer people neither the People area nor the role controls', async () => {
    const theirs = await freshPage(browser);
    await signIntoConsole(theirs, t, reader);
    const nav = theirs.getByRole('navigation', { name: 'Console' });
    await expect.poll(() => nav.getByRole('link').allTextContents()).toEqual(['Data', 'Trash', 'Library']);
    await theirs.getByRole('link', { name: 'North', exact: true }).click();
    await expect.poll(() => theirs.textContent('main h1')).toBe('North');
    expect(await theirs.getByRole('region', { name: 'Members of North' }).count()).toBe(0);
    expect(await theirs.getByRole('button', { name: /Give a role|Invite|Take away/ }).count()).toBe(0);

    // The address typed in: told in words, with no control.
    await theirs.goto(`${t.origin}/console/people`);
    await expect.poll(() => theirs.textContent('main .notice')).toContain('Only administrators');
    expect(await theirs.getByRole('button', { name: /Invite|New group/ }).count()).toBe(0);
    expect(await theirs.getByRole('navigation', { name: 'People sections' }).count()).toBe(0);
    await expectAccessible(theirs);
    await theirs.context().close();
  });
});
