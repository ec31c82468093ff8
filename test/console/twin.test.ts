import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { writeScans } from '../support/comparison-scans.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { createSite } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';

type Named = { id: string; name: string };

/**
 * A site's twin in the console: the viewer framed and connected, points of interest, nested
 * zones and metadata written through the panels, a draft invisible live until published; a
 * reader sees no write control; a comparison of two scans started, read, shown and deleted.
 */
describe('the web console: a twin', { timeout: 60_000 }, () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let siteId: string;
  let reader: { email: string; password: string };
  const ids = {} as Record<'pump' | 'valve' | 'type', string>;

  const api = {
    pois: async (ctx = siteId) =>
      (await org.admin.get(`/v1/twin/${ctx}/points-of-interest`)).body as (Named & Record<string, any>)[],
    zones: async (ctx = siteId) => (await org.admin.get(`/v1/twin/${ctx}/zones`)).body as (Named & Record<string, any>)[],
  };
  const WRITE_CONTROLS =
    /^(New point of interest|New zone|New draft|Publish draft|Discard draft|Edit .*|Delete .*|Add zone inside .*|Save metadata)$/;

  /** The site's screen, then Open twin, until the framed viewer says it has read the twin. */
  async function openTwin(target: Page) {
    await target.goto(`${t.origin}/console/nodes/${siteId}`);
    await target.getByRole('link', { name: 'Open twin' }).click();
    await expect.poll(() => target.textContent('main h1')).toBe('Twin of Plant');
    await viewerReady(target);
  }
  async function viewerReady(target: Page) {
    await target.locator('.viewer-status', { hasText: '3D view ready: Plant' }).waitFor({ timeout: 30_000 });
  }

  async function fillDialog(dialog: Locator, fields: Record<string, string>) {
    for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
  }
  async function submit(dialog: Locator, button: string) {
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startConsolePlatform({ viewer: true, worker: true, env: { RDP_RATE_LIMIT_DISABLED: '1' } }),
      launchBrowser(),
    ]);
    org = await createOrg(t, { storageQuota: 50 * 1024 * 1024 });
    siteId = await createSite(org, 'Plant');
    const [administrator, readerPerson, las] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
      sampleBytes((file) => writeLas(file, 2_000)),
    ]);
    reader = readerPerson;
    const { bundleId } = await processedPointCloud(org, siteId, { name: 'scan.las', bytes: las });
    expect((await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`)).status).toBe(201);
    const type = await org.admin.post('/v1/metadata-types', {
      name: 'Equipment',
      appliesTo: ['pointOfInterest', 'zone'],
      properties: [
        { section: 'Maintenance', name: 'Serial number', type: 'shortText', required: false },
        { section: 'Maintenance', name: 'Power', type: 'number', unit: 'kW', required: false },
      ],
    });
    ids.type = type.body.id;
    const poi = (name: string, x: number) =>
      org.admin.post(`/v1/twin/${siteId}/points-of-interest`, { name, position: { x, y: 2030, z: 55 } });
    ids.pump = (await poi('Pump P-101', 1030)).body.id;
    ids.valve = (await poi('Old valve', 1070)).body.id;
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens the twin in the framed viewer, and adds, edits and deletes points of interest', async () => {
    await openTwin(page);
    const list = page.getByRole('list', { name: 'Points of interest' });
    await expect.poll(() => list.locator('.object-name').allTextContents()).toEqual(['Pump P-101', 'Old valve']);
    await expectAccessible(page);
    // A label clicked in the view (poiSelected) selects the point in the list.
    await page.frameLocator('iframe').locator('.rdp-poi', { hasText: 'Pump P-101' }).click();
    await expect
      .poll(() => list.getByRole('button', { name: 'Pump P-101', exact: true }).getAttribute('aria-pressed'))
      .toBe('true');

    await page.getByRole('button', { name: 'New point of interest' }).click();
    const create = page.getByRole('dialog', { name: 'New point of interest' });
    await fillDialog(create, { Name: 'Gauge G-7', X: '1010', Y: '2010', Z: '52' });
    await expectAccessible(page);
    await submit(create, 'Create point of interest');
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Point of interest Gauge G-7 created.');
    const gauge = (await api.pois()).find((poi) => poi.name === 'Gauge G-7');
    expect(gauge?.position).toEqual({ x: 1010, y: 2010, z: 52 });
    // The view shows the new point's label (refreshed in place: docs/viewer.md, refresh).
    await viewerReady(page);
    await expect.poll(() => page.frameLocator('iframe').locator('.rdp-poi', { hasText: 'Gauge G-7' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Edit Pump P-101' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Pump P-101' });
    await fillDialog(edit, { Name: 'Pump P-102' });
    await edit.getByLabel('Metadata type').selectOption({ label: 'Equipment' });
    await submit(edit, 'Save');
    await expect
      .poll(async () => (await org.admin.get(`/v1/twin/${siteId}/points-of-interest/${ids.pump}`)).body)
      .toMatchObject({
        name: 'Pump P-102',
        metadataTypeId: ids.type,
      });

    await page.getByRole('button', { name: 'Delete Old valve' }).click();
    await submit(page.getByRole('dialog', { name: 'Delete Old valve?' }), 'Delete');
    await expect.poll(async () => (await org.admin.get(`/v1/twin/${siteId}/points-of-interest/${ids.valve}`)).status).toBe(404);
    await expect.poll(() => list.getByRole('button').allTextContents()).not.toContain('Old valve');
  });

  it('creates nested zones and sets a metadata value', async () => {
    await page.getByRole('button', { name: 'New zone', exact: true }).click();
    const hall = page.getByRole('dialog', { name: 'New zone' });
    await fillDialog(hall, { Name: 'Pump hall' });
    await submit(hall, 'Create zone');
    await page.getByRole('button', { name: 'Add zone inside Pump hall' }).click();
    const bay = page.getByRole('dialog', { name: 'New zone' });
    expect(await bay.getByLabel('Inside zone').inputValue()).not.toBe('');
    await fillDialog(bay, { Name: 'Bay 1' });
    await submit(bay, 'Create zone');
    await expect.poll(async () => (await api.zones()).map((zone) => zone.name).sort()).toEqual(['Bay 1', 'Pump hall']);
    const zones = await api.zones();
    const hallZone = zones.find((zone) => zone.name === 'Pump hall');
    expect(zones.find((zone) => zone.name === 'Bay 1')?.parentZoneId).toBe(hallZone?.id);
    // Shown as a tree: Bay 1 in a list inside Pump hall's item.
    const tree = page.getByRole('list', { name: 'Zones' });
    const hallItem = tree.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Pump hall', exact: true }) });
    await expect.poll(() => hallItem.getByRole('list').getByRole('button', { name: 'Bay 1', exact: true }).count()).toBe(1);

    // Selecting the pump (the view flies there) shows its metadata, by its type's sections.
    await page.getByRole('list', { name: 'Points of interest' }).getByRole('button', { name: 'Pump P-102', exact: true }).click();
    const metadata = page.getByRole('region', { name: 'Metadata of Pump P-102' });
    await metadata.getByLabel('Serial number').fill('SN-4711');
    await metadata.getByLabel('Power (kW)').fill('7.5');
    await expectAccessible(page);
    await metadata.getByRole('button', { name: 'Save metadata' }).click();
    await expect
      .poll(async () => (await org.admin.get(`/v1/twin/${siteId}/object/${ids.pump}/metadata`)).body.sections)
      .toEqual({ Maintenance: { 'Serial number': 'SN-4711', Power: 7.5 } });
  });

  it('works in a draft that the live twin does not show until it is published', async () => {
    await page.getByRole('button', { name: 'New draft' }).click();
    const create = page.getByRole('dialog', { name: 'New draft' });
    await fillDialog(create, { 'Draft name': 'Add a sensor' });
    await submit(create, 'Create draft');
    await expect.poll(() => page.textContent('#draft-heading')).toBe('Draft: Add a sensor');
    const draftId = new URL(page.url()).searchParams.get('draft') as string;
    await viewerReady(page);

    await page.getByRole('button', { name: 'New point of interest' }).click();
    const add = page.getByRole('dialog', { name: 'New point of interest' });
    await fillDialog(add, { Name: 'Sensor S-1' });
    await submit(add, 'Create point of interest');
    await page.getByRole('button', { name: 'Edit Gauge G-7' }).click();
    await submit(await fillThen(page.getByRole('dialog', { name: 'Edit Gauge G-7' }), { Name: 'Gauge G-8' }), 'Save');

    const changes = page.getByRole('list', { name: 'Changes in this draft' });
    await expect
      .poll(async () => (await changes.getByRole('listitem').allTextContents()).sort())
      .toEqual(['Adds the point of interest Sensor S-1', 'Changes the point of interest Gauge G-8']);
    // Invisible live; visible through the draft.
    expect((await api.pois()).map((poi) => poi.name)).toEqual(['Pump P-102', 'Gauge G-7']);
    expect((await api.pois(draftId)).map((poi) => poi.name)).toEqual(['Pump P-102', 'Gauge G-8', 'Sensor S-1']);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Publish draft' }).click();
    await submit(page.getByRole('dialog', { name: 'Publish Add a sensor?' }), 'Publish');
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Add a sensor is published');
    expect(new URL(page.url()).search).toBe('');
    expect((await api.pois()).map((poi) => poi.name)).toEqual(['Pump P-102', 'Gauge G-8', 'Sensor S-1']);
    expect((await org.admin.get(`/v1/twin/${siteId}/drafts`)).body).toMatchObject([{ id: draftId, status: 'published' }]);
    await expect
      .poll(() => page.getByRole('list', { name: 'Points of interest' }).getByRole('button').allTextContents())
      .toContain('Sensor S-1');
  });

  it('shows a reader the twin, its objects and metadata, and no write control', async () => {
    const readerPage = await freshPage(browser);
    await signIntoConsole(readerPage, t, reader);
    await openTwin(readerPage);
    await readerPage.getByRole('button', { name: 'Pump P-102', exact: true }).click();
    const metadata = readerPage.getByRole('region', { name: 'Metadata of Pump P-102' });
    await expect.poll(() => metadata.locator('dd').allTextContents()).toEqual(['SN-4711', '7.5 kW']);
    const buttons = await readerPage.getByRole('main').getByRole('button').allTextContents();
    const labels = await readerPage
      .getByRole('main')
      .getByRole('button')
      .evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label') ?? element.textContent ?? ''));
    expect(buttons.length).toBeGreaterThan(0);
    expect([...buttons, ...labels].filter((name) => WRITE_CONTROLS.test(name.trim()))).toEqual([]);
    await expectAccessible(readerPage);
    await readerPage.context().close();
  });

  it('compares two scans: started through the form, its figures and histogram as the API has them, shown, deleted', {
    timeout: 180_000,
  }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdp-console-comparison-'));
    try {
      const scans = await writeScans(dir);
      for (const file of [scans.reference, scans.compared]) {
        await processedPointCloud(org, siteId, { name: path.basename(file), bytes: await readFile(file) });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await page.goto(`${t.origin}/console/nodes/${siteId}`);
    await page.getByRole('link', { name: 'Comparisons', exact: true }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Comparisons of Plant');
    await page.getByRole('button', { name: 'New comparison' }).click();
    const form = page.getByRole('dialog', { name: 'New comparison' });
    await form.getByLabel('Reference scan').selectOption({ label: 'Processed reference.las' });
    await form.getByLabel('Compared scan').selectOption({ label: 'Processed compared.las' });
    await fillDialog(form, { 'Name (optional)': 'Slab and wall' });
    expect(await form.getByLabel('Maximum distance (m)').inputValue()).toBe('1');
    expect(await form.getByLabel('Tolerance (m)').inputValue()).toBe('0.05');
    // The cost of this pair, read first, is what the start submits.
    await form.locator('.comparison-cost', { hasText: 'costs 3 credits' }).waitFor();
    await submit(form, 'Start comparison for 3 credits');

    await page.locator('.state-words', { hasText: 'Ready.' }).waitFor({ timeout: 120_000 });
    const [listed] = (await org.admin.get(`/v1/twin/${siteId}/comparisons`)).body as Record<string, any>[];
    expect(listed).toMatchObject({
      name: 'Slab and wall',
      method: 'c2c',
      maxDistance: 1,
      tolerance: 0.05,
      cost: 3,
      state: 'ready',
    });
    expect(new URL(page.url()).pathname).toBe(`/console/twins/${siteId}/comparisons/${listed?.id}`);
    const { stats, histogram } = listed as { stats: Record<string, number>; histogram: { bins: { count: number }[] } };
    const metres = (value: number) => `${value.toFixed(3)} m`;
    const figure = (key: string) => page.locator(`[data-figure=${key}]`).textContent();
    expect(await figure('max')).toBe('0.300 m');
    for (const key of ['mean', 'median', 'p95', 'p99', 'max', 'rms'])
      expect(await figure(key)).toBe(metres(stats[key] as number));
    expect(await figure('comparedPoints')).toBe('1,013');
    expect(await figure('beyondMaxDistance')).toBe(String(stats.beyondMaxDistance));
    expect(await figure('withinTolerance')).toBe(`${((stats.withinTolerance as number) * 100).toFixed(1)} %`);
    // One bar per bin, their heights in the ratio of the counts.
    const heights = await page
      .locator('svg.histogram .histogram-bars rect')
      .evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('height'))));
    const counts = histogram.bins.map((bin) => bin.count);
    expect(heights).toHaveLength(counts.length);
    const [tallest, most] = [Math.max(...heights), Math.max(...counts)];
    for (const [index, height] of heights.entries()) expect(height / tallest).toBeCloseTo((counts[index] as number) / most, 9);
    expect(await page.getByRole('link', { name: 'Download the distances (CSV)' }).getAttribute('href')).toMatch(/^http/);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Show in the twin' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Twin of Plant');
    const layers = page.getByRole('list', { name: 'Layers' });
    await layers.getByRole('link', { name: 'Slab and wall' }).click();
    expect((await org.admin.get(`/v1/twin/${siteId}`)).body.layers.map((layer: { kind: string }) => layer.kind)).toEqual([
      'pointCloud',
      'comparison',
    ]);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await submit(page.getByRole('dialog', { name: 'Delete Slab and wall?' }), 'Delete comparison');
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Slab and wall is deleted.');
    expect((await org.admin.get(`/v1/twin/${siteId}/comparisons/${listed?.id}`)).status).toBe(404);
  });
});

async function fillThen(dialog: Locator, fields: Record<string, string>): Promise<Locator> {
  for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
  return dialog;
}
