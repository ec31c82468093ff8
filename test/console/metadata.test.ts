import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';

/**
 * Metadata in the console (docs/console.md, "Metadata types" and "Twin"): a metadata type made on
 * its screen; free metadata written on a point of interest without a type; a first type that does
 * not fit it refused by name, then given with what does not fit dropped; a file attached to the
 * point, downloaded and named by an attachment property; a type in use not deleted, said in words.
 */
describe('the web console: metadata types, free metadata and attachments', { timeout: 60_000 }, () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let siteId: string;
  let gaugeId: string;
  let reader: { email: string; password: string };
  const report = Buffer.from('Calibration report of gauge G-7\n'.repeat(40));

  const types = async () =>
    (await org.admin.get('/v1/metadata-types')).body as { id: string; name: string; properties: unknown[] }[];
  const gauge = async () =>
    (await org.admin.get(`/v1/twin/${siteId}/points-of-interest/${gaugeId}?includeMetadata=true`)).body as {
      metadataTypeId: string | null;
      metadata: Record<string, Record<string, unknown>>;
    };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startConsolePlatform({ env: { RDP_RATE_LIMIT_DISABLED: '1' } }), launchBrowser()]);
    org = await createOrg(t);
    siteId = await createSite(org, 'Plant');
    const poi = await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, {
      name: 'Gauge G-7',
      position: { x: 1, y: 2, z: 3 },
    });
    gaugeId = poi.body.id;
    let administrator: { email: string; password: string };
    [administrator, reader] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
    ]);
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('creates a metadata type on its screen', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Metadata types' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Metadata types');
    await page.getByText('The organization has no metadata type yet.').waitFor();
    await expectAccessible(page);

    await page.getByRole('button', { name: 'New metadata type' }).click();
    const dialog = page.getByRole('dialog', { name: 'New metadata type' });
    await dialog.getByLabel('Name', { exact: true }).fill('Equipment');
    const properties: [string, string, string][] = [
      ['Serial number', 'Short text', ''],
      ['Power', 'Number', 'kW'],
      ['Manual', 'Attachment', ''],
    ];
    for (const [index, [name, kind, unit]] of properties.entries()) {
      await dialog.getByRole('button', { name: 'Add a property' }).click();
      const row = dialog.getByRole('group', { name: `Property ${index + 1}` });
      await row.getByLabel('Section').fill('Maintenance');
      await row.getByLabel('Name').fill(name);
      await row.getByLabel('Kind').selectOption({ label: kind });
      if (unit) await row.getByLabel('Unit').fill(unit);
    }
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Create metadata type' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.textContent('main [role=status]')).toBe('Metadata type Equipment created.');
    const [equipment] = await types();
    expect(equipment).toMatchObject({
      name: 'Equipment',
      appliesTo: ['pointOfInterest'],
      properties: [
        { section: 'Maintenance', name: 'Serial number', type: 'shortText', required: false },
        { section: 'Maintenance', name: 'Power', type: 'number', unit: 'kW', required: false },
        { section: 'Maintenance', name: 'Manual', type: 'attachment', required: false },
      ],
    });

    // Edited: the whole type is sent again, with zones added to what it applies to.
    await page.getByRole('button', { name: 'Edit Equipment' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Equipment' });
    await edit.getByLabel('zone', { exact: true }).check();
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await edit.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await types())[0])
      .toMatchObject({ appliesTo: ['pointOfInterest', 'zone'], properties: equipment?.properties });
  });

  it('writes free metadata, gives a type dropping what does not fit, and attaches a file', async () => {
    await page.goto(`${t.origin}/console/twins/${siteId}`);
    await page.getByRole('list', { name: 'Points of interest' }).getByRole('button', { name: 'Gauge G-7', exact: true }).click();
    const metadata = page.getByRole('region', { name: 'Metadata of Gauge G-7' });
    await metadata.getByRole('button', { name: 'Add a section' }).click();
    const section = metadata.getByRole('group', { name: 'Section 1' });
    await section.getByLabel('Section name').fill('Maintenance');
    const free: [string, string, string][] = [
      ['Serial number', 'Text', 'SN-4711'],
      ['Power', 'Number', '7.5'],
      ['Colour', 'Text', 'red'],
    ];
    for (const [index, [name, kind, value]] of free.entries()) {
      if (index > 0) await section.getByRole('button', { name: 'Add a property to section 1' }).click();
      const property = section.getByRole('group', { name: `Property ${index + 1}` });
      await property.getByLabel('Property name').fill(name);
      await property.getByLabel('Kind').selectOption({ label: kind });
      await property.getByLabel('Value').fill(value);
    }
    await expectAccessible(page);
    await metadata.getByRole('button', { name: 'Save metadata' }).click();
    await expect
      .poll(async () => (await gauge()).metadata)
      .toEqual({
        Maintenance: { 'Serial number': 'SN-4711', Power: 7.5, Colour: 'red' },
      });

    // Equipment has no Colour: the platform names it, and the panel offers to drop it.
    await metadata.getByLabel('Metadata type').selectOption({ label: 'Equipment' });
    await metadata.getByRole('button', { name: 'Give this type' }).click();
    const refusal = metadata.getByRole('alert');
    await expect.poll(() => refusal.textContent()).toContain('Maintenance.Colour: is not a property of the metadata type');
    expect((await gauge()).metadataTypeId).toBeNull();
    await expectAccessible(page);
    await refusal.getByRole('button', { name: 'Drop what does not fit and give Equipment' }).click();
    const [equipment] = await types();
    await expect.poll(gauge).toMatchObject({
      metadataTypeId: equipment?.id,
      metadata: { Maintenance: { 'Serial number': 'SN-4711', Power: 7.5 } },
    });
    expect((await gauge()).metadata.Maintenance).not.toHaveProperty('Colour');
    await expect.poll(() => metadata.getByLabel('Serial number').inputValue()).toBe('SN-4711');

    // A file attached from the picker, uploaded and finalized, then downloaded with the same bytes.
    const attachments = page.getByRole('region', { name: 'Attachments of Gauge G-7' });
    await attachments.getByLabel('Attach a file').setInputFiles({ name: 'report.txt', mimeType: 'text/plain', buffer: report });
    await attachments.getByRole('button', { name: 'Download report.txt' }).waitFor();
    const listed = (await org.admin.get(`/v1/twin/${siteId}/object/${gaugeId}/attachments`)).body as { id: string }[];
    expect(listed).toMatchObject([{ name: 'report.txt', size: report.length, state: 'ready' }]);
    const attachmentId = listed[0]?.id as string;
    const viaApi = await fetch(`${org.admin.baseUrl}/v1/twin/${siteId}/object/attachments/${attachmentId}/download`, {
      headers: { authorization: `Bearer ${org.admin.token}` },
    });
    expect(Buffer.from(await viaApi.arrayBuffer()).equals(report)).toBe(true);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      attachments.getByRole('button', { name: 'Download report.txt' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('report.txt');
    expect((await readFile((await download.path()) as string)).equals(report)).toBe(true);
    await expectAccessible(page);

    // The type's attachment property names it.
    await metadata.getByLabel('Manual').selectOption({ label: 'report.txt' });
    await metadata.getByRole('button', { name: 'Save metadata' }).click();
    await expect
      .poll(async () => (await gauge()).metadata.Maintenance?.Manual)
      .toEqual({ _p3d_type: 'urn:primitive:obj:attachment', id: attachmentId, name: 'report.txt' });
  });

  it('refuses in words to delete a type in use; a reader sees the values and no control', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Metadata types' }).click();
    await page.getByRole('button', { name: 'Delete Equipment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the metadata type Equipment?' });
    await dialog.getByRole('button', { name: 'Delete Equipment' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('used by 1 object');
    await expectAccessible(page);
    expect((await types()).map((type) => type.name)).toEqual(['Equipment']);

    // A reader: no Metadata types in the navigation; the point's values and attachment, and no control to change them.
    const readerPage = await freshPage(browser);
    await signIntoConsole(readerPage, t, reader, `/console/twins/${siteId}`);
    await readerPage
      .getByRole('list', { name: 'Points of interest' })
      .getByRole('button', { name: 'Gauge G-7', exact: true })
      .click();
    const metadata = readerPage.getByRole('region', { name: 'Metadata of Gauge G-7' });
    await expect.poll(() => metadata.locator('dd').allTextContents()).toEqual(['SN-4711', '7.5 kW', 'File report.txt']);
    const attachments = readerPage.getByRole('region', { name: 'Attachments of Gauge G-7' });
    await attachments.getByRole('button', { name: 'Download report.txt' }).waitFor();
    expect(await attachments.getByLabel('Attach a file').count()).toBe(0);
    expect(await metadata.getByRole('button').count()).toBe(0);
    expect(await readerPage.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).not.toContain(
      'Metadata types',
    );
    await readerPage.context().close();
  });
});
