import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';

/** The tree in the console: browse, search, create, rename, move, trash, restore, delete; a reader sees no write control. */
describe('the web console: the tree', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let reader: { id: string; email: string; password: string };
  // Filled in as the nodes are made: by the API in beforeAll, through the console in the first test.
  const ids = {} as Record<'north' | 'south' | 'dock' | 'drawings' | 'many' | 'harbour' | 'quay' | 'scans', string>;

  const api = {
    node: (id: string) => org.admin.get(`/v1/nodes/${id}`),
    children: async (id: string) =>
      (await org.admin.get(`/v1/nodes/${id}/browse?limit=500`)).body as { id: string; name: string }[],
    trash: async () => (await org.admin.get('/v1/trash')).body as { id: string; name: string }[],
    create: async (parentId: string, kind: string, body: Record<string, string>) => {
      const created = await org.admin.post(`/v1/nodes/${parentId}/${kind}`, body);
      expect(created.status).toBe(201);
      return created.body.id as string;
    },
  };
  const WRITE_CONTROLS = /^(New (division|site|folder)|Rename|Move|Move to trash|Restore .*|Delete for good: .*)$/;

  async function openNode(name: string) {
    await page.getByRole('link', { name, exact: true }).first().click();
    await expect.poll(() => page.textContent('main h1')).toBe(name);
  }

  async function dialogSubmit(title: string, fields: Record<string, string>, button: string) {
    const dialog = page.getByRole('dialog', { name: title });
    for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([startConsolePlatform({ env: { RDP_RATE_LIMIT_DISABLED: '1' } }), launchBrowser()]);
    org = await createOrg(t);
    const [administrator, readerPerson, viewer] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
      createMember(t, org),
    ]);
    reader = readerPerson;
    // North has members of its own (a permission boundary); South does not.
    ids.north = await api.create(org.orgId, 'division', { name: 'North' });
    ids.south = await api.create(org.orgId, 'division', { name: 'South' });
    await t.admin.grantMembership({ nodeId: ids.north, principalId: viewer.id, roleId: org.roles.Viewer as string });
    ids.dock = await api.create(ids.south, 'site', { name: 'Dock', address: '3 Pier Road' });
    ids.drawings = await api.create(ids.south, 'folder', { name: 'Drawings' });
    ids.many = await api.create(org.orgId, 'division', { name: 'Many' });
    await Promise.all(
      Array.from({ length: 101 }, (_, index) =>
        api.create(ids.many, 'folder', { name: `Item ${String(index).padStart(3, '0')}` }),
      ),
    );
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('creates a division, a site and a folder where the hierarchy allows, and renames them', async () => {
    // The organization holds divisions only: nothing else is offered.
    await expect.poll(() => page.getByRole('button', { name: /^New / }).allTextContents()).toEqual(['New division']);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'New division' }).click();
    await expectAccessible(page);
    await dialogSubmit('New division in ' + (await api.node(org.orgId)).body.name, { Name: 'Harbour' }, 'Create division');
    await expect.poll(() => page.textContent('[role=status]')).toContain('Division Harbour created.');
    ids.harbour = (await api.children(org.orgId)).find((node) => node.name === 'Harbour')?.id as string;
    expect((await api.node(ids.harbour)).body).toMatchObject({ type: 'division', parentId: org.orgId });

    await openNode('Harbour');
    await expect.poll(() => page.getByRole('button', { name: /^New / }).allTextContents()).toEqual(['New site', 'New folder']);
    await page.getByRole('button', { name: 'New site' }).click();
    await dialogSubmit('New site in Harbour', { Name: 'Quay plant', Address: '1 Quay Street' }, 'Create site');
    await expect.poll(() => page.textContent('[role=status]')).toContain('Site Quay plant created.');
    const site = (await api.children(ids.harbour)).find((node) => node.name === 'Quay plant');
    ids.quay = site?.id as string;
    expect((await api.node(ids.quay)).body).toMatchObject({ type: 'site', address: '1 Quay Street', parentId: ids.harbour });

    await openNode('Quay plant');
    // Inside a site: folders only (no site in a site).
    await expect.poll(() => page.getByRole('button', { name: /^New / }).allTextContents()).toEqual(['New folder']);
    await page.getByRole('button', { name: 'New folder' }).click();
    await dialogSubmit('New folder in Quay plant', { Name: 'Scans' }, 'Create folder');
    await expect.poll(async () => (await api.children(ids.quay)).map((node) => node.name)).toEqual(['Scans']);
    ids.scans = (await api.children(ids.quay))[0]?.id as string;

    await openNode('Scans');
    await page.getByRole('button', { name: 'Rename' }).click();
    await dialogSubmit('Rename Scans', { Name: 'Laser scans' }, 'Save');
    await expect.poll(() => page.textContent('main h1')).toBe('Laser scans');
    expect((await api.node(ids.scans)).body.name).toBe('Laser scans');
  });

  it('leads back up by the breadcrumbs, and pages through more than 100 children', async () => {
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    const orgName = (await api.node(org.orgId)).body.name as string;
    // Each item: the kind's icon (one character), then the name; all but the last are links.
    await expect
      .poll(async () => (await crumbs.getByRole('listitem').allTextContents()).map((text) => text.slice(1)))
      .toEqual([orgName, 'Harbour', 'Quay plant', 'Laser scans']);
    expect(await crumbs.getByRole('link').count()).toBe(3);
    await crumbs.getByRole('link', { name: 'Harbour' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Harbour');
    expect(new URL(page.url()).pathname).toBe(`/console/nodes/${ids.harbour}`);
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: orgName }).click();
    await expect.poll(() => page.textContent('main h1')).toBe(orgName);
    expect(new URL(page.url()).pathname).toBe('/console/');

    await openNode('Many');
    const rows = page.locator('table.nodes tbody tr');
    await expect.poll(() => rows.count()).toBe(100);
    expect(await page.textContent('.show-more')).toContain('100 items shown.');
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => rows.count()).toBe(101);
    expect(await rows.last().textContent()).toContain('Item 100');
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
  });

  it('finds a node by name and leads to it', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('search', { name: 'Search your data' }).getByLabel('Search by name').fill('quay');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.textContent('main [role=status]')).toContain('1 found for “quay”');
    expect(new URL(page.url()).search).toBe('?q=quay');
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Quay plant' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Quay plant');
    expect(new URL(page.url()).pathname).toBe(`/console/nodes/${ids.quay}`);

    // Inside one division only: South has no node called like it.
    await page.goto(`${t.origin}/console/nodes/${ids.south}`);
    await page.getByLabel('Search by name').fill('quay');
    await page.getByLabel('Only inside South').check();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.textContent('main [role=status]')).toBe('Nothing is named like “quay” inside South.');
    expect(new URL(page.url()).searchParams.get('under')).toBe(ids.south);
  });

  it('moves a node, shows a refused move in words, and moves anyway where the spec allows forcing', async () => {
    // A site cannot hold a site: refused, in words, with no way to force it.
    await page.goto(`${t.origin}/console/nodes/${ids.dock}`);
    await expect.poll(() => page.textContent('main h1')).toBe('Dock');
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Move Dock' });
    await dialog.getByLabel('Find a place by name').fill('Quay');
    await dialog.getByRole('button', { name: 'Find' }).click();
    await dialog.getByRole('button', { name: /^Choose Quay plant/ }).click();
    await dialog.getByRole('button', { name: 'Move to Quay plant' }).click();
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe('That place cannot hold this kind of item. (A site inside a site cannot hold a site)');
    expect(await dialog.getByRole('button', { name: 'Move anyway' }).count()).toBe(0);
    await expectAccessible(page);
    expect((await api.node(ids.dock)).body.parentId).toBe(ids.south);

    // Browsing in the dialog: up to the organization, into Harbour; the move goes through.
    await dialog.getByRole('navigation', { name: 'Path of the chosen place' }).getByRole('button').first().click();
    await dialog.getByRole('button', { name: /^Open Harbour/ }).click();
    await dialog.getByRole('button', { name: 'Move to Harbour' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Moved to Harbour.');
    expect((await api.node(ids.dock)).body.parentId).toBe(ids.harbour);
    await expect.poll(() => page.getByRole('navigation', { name: 'Breadcrumb' }).textContent()).toContain('Harbour');

    // North has members of its own: moving Drawings there changes who can access it.
    await page.goto(`${t.origin}/console/nodes/${ids.drawings}`);
    await expect.poll(() => page.textContent('main h1')).toBe('Drawings');
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    const move = page.getByRole('dialog', { name: 'Move Drawings' });
    await move.getByRole('navigation', { name: 'Path of the chosen place' }).getByRole('button').first().click();
    await move.getByRole('button', { name: /^Open North/ }).click();
    await move.getByRole('button', { name: 'Move to North' }).click();
    await expect.poll(() => move.getByRole('alert').textContent()).toContain('would change who can access it');
    expect((await api.node(ids.drawings)).body.parentId).toBe(ids.south);
    await move.getByRole('button', { name: 'Move anyway' }).click();
    await move.waitFor({ state: 'detached' });
    expect((await api.node(ids.drawings)).body.parentId).toBe(ids.north);
  });

  it('moves to the trash, restores, and deletes for good after a confirmation naming the node', async () => {
    await page.goto(`${t.origin}/console/nodes/${ids.scans}`);
    await expect.poll(() => page.textContent('main h1')).toBe('Laser scans');
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page
      .getByRole('dialog', { name: 'Move Laser scans to the trash?' })
      .getByRole('button', { name: 'Move to trash' })
      .click();
    // Back on the site, which says where the folder went.
    await expect.poll(() => page.textContent('main h1')).toBe('Quay plant');
    expect(await page.textContent('main [role=status]')).toContain('Laser scans is in the trash');
    expect((await api.node(ids.scans)).status).toBe(404);
    expect((await api.trash()).map((node) => node.id)).toContain(ids.scans);

    await page.getByRole('link', { name: 'Trash', exact: true }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Trash');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Restore Laser scans' }).click();
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Laser scans is restored.');
    expect((await api.node(ids.scans)).body).toMatchObject({ parentId: ids.quay, trashedAt: null });

    // A refused restore in words: the folder's site went to the trash after it.
    expect((await org.admin.delete(`/v1/nodes/${ids.scans}`)).status).toBe(204);
    expect((await org.admin.delete(`/v1/nodes/${ids.quay}`)).status).toBe(204);
    await page.reload();
    await page.getByRole('button', { name: 'Restore Laser scans' }).click();
    await expect
      .poll(() => page.textContent('main [role=alert]'))
      .toBe('Laser scans was not restored: It could not be restored. (The parent is in the trash; restore it first)');
    expect((await api.node(ids.scans)).status).toBe(404);

    await page.getByRole('button', { name: 'Delete for good: Quay plant' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Quay plant for good?' });
    expect(await confirm.textContent()).toContain('This cannot be undone.');
    await expectAccessible(page);
    await confirm.getByRole('button', { name: 'Delete Quay plant for good' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Quay plant is deleted for good.');
    expect((await api.node(ids.quay)).status).toBe(404);
    expect((await api.trash()).map((node) => node.id)).not.toContain(ids.quay);
    expect((await api.children(ids.harbour)).map((node) => node.name)).toEqual(['Dock']);
  });

  it('shows a Reader the tree, its search and the trash, and none of the write controls', async () => {
    expect((await org.admin.delete(`/v1/nodes/${ids.drawings}`)).status).toBe(204);
    // What the API tells the console: a Reader's role reads and nothing more.
    const readerRead = await (await org.serviceClient({ roleName: 'Organization Reader' })).client.get(`/v1/nodes/${ids.dock}`);
    expect(readerRead.body.permissions).toEqual(['read']);
    const readerPage = await freshPage(browser);
    await signIntoConsole(readerPage, t, reader);
    const writeControls = () => readerPage.getByRole('button', { name: WRITE_CONTROLS }).count();
    await expect.poll(() => readerPage.getByRole('link', { name: 'Harbour' }).count()).toBe(1);
    expect(await writeControls()).toBe(0);
    await readerPage.getByRole('link', { name: 'Harbour' }).click();
    await expect.poll(() => readerPage.textContent('main h1')).toBe('Harbour');
    await readerPage.getByRole('link', { name: 'Dock' }).click();
    await expect.poll(() => readerPage.textContent('main h1')).toBe('Dock');
    expect(await readerPage.getByRole('link', { name: 'Harbour' }).count()).toBe(1);
    expect(await writeControls()).toBe(0);
    await expectAccessible(readerPage);

    await readerPage.getByRole('link', { name: 'Trash', exact: true }).click();
    await expect.poll(() => readerPage.getByRole('cell', { name: 'Drawings' }).count()).toBe(1);
    expect(await writeControls()).toBe(0);
    expect(await readerPage.getByRole('button').allTextContents()).toEqual(['Sign out']);
    await readerPage.context().close();
  });
});
