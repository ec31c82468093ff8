import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';

const SAMPLE_SCAN = path.join(__dirname, '../../examples/sample-scan.laz');

type Vector3 = { x: number; y: number; z: number };
type ViewerStatus = {
  ready: boolean;
  layers: { bundleId: string; tilesLoaded: number; pointsLoaded: number; errors: string[]; settled: boolean }[];
};

/**
 * The journey through the console, on one platform with its worker and viewer: an
 * administrator signs in, makes a division and a site, uploads a scan into a new bundle,
 * processes it once the cost is confirmed, shows it in the site's twin (the viewer loads its
 * tiles) and adds a point of interest there; then the twin's layers panel removes and adds the
 * layer, and a reader sees none of the layer controls.
 */
describe('the web console: from sign-in to a point of interest on a processed scan', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let reader: { email: string; password: string };
  const ids = {} as Record<'site' | 'bundle', string>;

  const api = {
    children: async (parentId: string) =>
      (await org.admin.get(`/v1/nodes/${parentId}/browse?limit=500`)).body as { id: string; name: string; type: string }[],
    layers: async () => (await org.admin.get(`/v1/twin/${ids.site}`)).body.layers as { bundleId: string; boundingBox: any }[],
  };

  async function submitDialog(title: string | RegExp, fields: Record<string, string>, button: string) {
    const dialog = page.getByRole('dialog', { name: title });
    for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  /** What the framed viewer says of itself (window.rdpViewerStatus, docs/viewer.md), or null while it loads. */
  async function viewerStatus(target: Page): Promise<ViewerStatus | null> {
    for (const frame of target.frames()) {
      if (frame === target.mainFrame()) continue;
      const status = await frame
        .evaluate(() => (window as unknown as { rdpViewerStatus?: () => ViewerStatus }).rdpViewerStatus?.() ?? null)
        .catch(() => null);
      if (status) return status;
    }
    return null;
  }

  /** The twin screen's viewer, ready and showing exactly these layers, each with tiles loaded and no error. */
  async function viewerShows(target: Page, bundleIds: string[]) {
    await target.locator('.viewer-status', { hasText: '3D view ready: Quay plant' }).waitFor({ timeout: 30_000 });
    await expect
      .poll(
        async () => {
          const status = await viewerStatus(target);
          return status?.ready && status.layers.every((layer) => layer.settled)
            ? status.layers.map((layer) => layer.bundleId)
            : null;
        },
        { timeout: 30_000 },
      )
      .toEqual(bundleIds);
    for (const layer of (await viewerStatus(target))?.layers ?? []) {
      expect(layer.errors).toEqual([]);
      expect(layer.tilesLoaded).toBeGreaterThan(0);
      expect(layer.pointsLoaded).toBeGreaterThan(0);
    }
    expect(await target.locator('.viewer-status.failed').count()).toBe(0);
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startConsolePlatform({ worker: true, viewer: true, env: { RDP_RATE_LIMIT_DISABLED: '1' } }),
      launchBrowser(),
    ]);
    org = await createOrg(t, { storageQuota: 50 * 1024 * 1024 });
    const [administrator, readerPerson] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
    ]);
    reader = readerPerson;
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('makes a site, uploads and processes a scan, shows it in the twin and adds a point of interest there', async () => {
    // A division and a site, through the console's own dialogs.
    await page.getByRole('button', { name: 'New division' }).click();
    await submitDialog(/^New division in /, { Name: 'Harbour' }, 'Create division');
    await page.getByRole('link', { name: 'Harbour', exact: true }).first().click();
    await expect.poll(() => page.textContent('main h1')).toBe('Harbour');
    await page.getByRole('button', { name: 'New site' }).click();
    await submitDialog('New site in Harbour', { Name: 'Quay plant', Address: '1 Quay Street' }, 'Create site');
    await page.getByRole('link', { name: 'Quay plant', exact: true }).first().click();
    await expect.poll(() => page.textContent('main h1')).toBe('Quay plant');
    const division = (await api.children(org.orgId)).find((node) => node.name === 'Harbour');
    const site = (await api.children(division?.id as string)).find((node) => node.name === 'Quay plant');
    expect(site?.type).toBe('site');
    ids.site = site?.id as string;

    // The scan, chosen with the file picker, into a new bundle: its progress bar goes to the file's size.
    await page.getByLabel('Files for a new data bundle').setInputFiles([SAMPLE_SCAN]);
    await page.getByLabel('Data bundle name').fill('Quay scan');
    await page.getByRole('button', { name: /as a new data bundle$/ }).click();
    const upload = page.getByRole('region', { name: 'Upload of Quay scan' });
    const bar = upload.getByRole('progressbar', { name: 'sample-scan.laz' });
    await bar.waitFor();
    await expect.poll(() => upload.getByRole('status').textContent(), { timeout: 20_000 }).toContain('Uploaded.');
    const { size } = await stat(SAMPLE_SCAN);
    expect(await bar.getAttribute('value')).toBe(String(size));
    ids.bundle = (await api.children(ids.site)).find((node) => node.name === 'Quay scan')?.id as string;
    expect((await org.admin.get(`/v1/bundles/${ids.bundle}`)).body).toMatchObject({ state: 'uploaded', size });

    // Processed once its cost is confirmed, watched to its end.
    await upload.getByRole('link', { name: 'Quay scan' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Quay scan');
    const { cost, unit } = (await org.admin.get(`/v1/bundles/${ids.bundle}/processing/cost`)).body;
    await page.getByRole('button', { name: 'Process…' }).click();
    await submitDialog('Process Quay scan?', {}, `Start processing for ${cost} ${unit}`);
    await expect.poll(() => page.textContent('.processing-state'), { timeout: 45_000 }).toMatch(/^Processed in \d+/);
    expect((await org.admin.get(`/v1/bundles/${ids.bundle}`)).body.state).toBe('ready');

    // Into the twin: the bundle becomes its layer and the viewer loads the scan's tiles.
    await page.getByRole('button', { name: 'Show in the twin of Quay plant' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Twin of Quay plant');
    expect(new URL(page.url()).pathname).toBe(`/console/twins/${ids.site}`);
    const [layer] = await api.layers();
    if (!layer?.boundingBox) throw new Error('the twin has no layer with an extent');
    expect(layer.bundleId).toBe(ids.bundle);
    await viewerShows(page, [ids.bundle]);
    const layers = page.getByRole('list', { name: 'Layers' });
    await expect
      .poll(() => layers.getByRole('listitem').textContent())
      .toMatch(/^Quay scanPoint cloud · (Not )?[Gg]eoreferenced/);
    await expectAccessible(page);

    // A point of interest in the middle of the scan, typed in the console.
    const { min, max } = layer.boundingBox as { min: Vector3; max: Vector3 };
    const middle = (axis: keyof Vector3) => Math.round((min[axis] + max[axis]) / 2);
    const position = { x: middle('x'), y: middle('y'), z: middle('z') };
    await page.getByRole('button', { name: 'New point of interest' }).click();
    await submitDialog(
      'New point of interest',
      { Name: 'Bollard B-3', X: String(position.x), Y: String(position.y), Z: String(position.z) },
      'Create point of interest',
    );
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Point of interest Bollard B-3 created.');
    const pois = (await org.admin.get(`/v1/twin/${ids.site}/points-of-interest`)).body as { name: string; position: Vector3 }[];
    expect(pois).toMatchObject([{ name: 'Bollard B-3', position }]);
  }, 120_000);

  it("removes the twin's layer and adds it again through the layers panel", async () => {
    await page.getByRole('button', { name: 'Remove layer Quay scan' }).click();
    await expectAccessible(page);
    await submitDialog('Remove layer Quay scan?', {}, 'Remove layer');
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Quay scan is no longer a layer of the twin.');
    expect(await api.layers()).toEqual([]);
    await viewerShows(page, []);

    await page.getByRole('button', { name: 'Add layer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a layer' });
    await expect.poll(() => dialog.getByLabel('Processed data bundle').textContent()).toBe('Quay scan');
    await expectAccessible(page);
    await submitDialog('Add a layer', {}, 'Add layer');
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Quay scan is a layer of the twin.');
    expect((await api.layers()).map((layer) => layer.bundleId)).toEqual([ids.bundle]);
    await viewerShows(page, [ids.bundle]);
  }, 60_000);

  it('shows a reader the layers with no control to change them, and no way to put a bundle into the twin', async () => {
    const readerPage = await freshPage(browser);
    await signIntoConsole(readerPage, t, reader, `/console/twins/${ids.site}`);
    await expect.poll(() => readerPage.textContent('main h1')).toBe('Twin of Quay plant');
    await expect
      .poll(() => readerPage.getByRole('list', { name: 'Layers' }).getByRole('link').allTextContents())
      .toEqual(['Quay scan']);
    expect(await readerPage.getByRole('button', { name: /layer/i }).count()).toBe(0);
    await expectAccessible(readerPage);

    await readerPage.getByRole('list', { name: 'Layers' }).getByRole('link', { name: 'Quay scan' }).click();
    await expect.poll(() => readerPage.textContent('.processing-state')).toMatch(/^Processed in/);
    // The button would follow the bundle's path up to its site, which the breadcrumbs show once read.
    await readerPage.getByRole('navigation').getByRole('link', { name: 'Quay plant' }).waitFor();
    expect(await readerPage.getByRole('button', { name: /twin/i }).count()).toBe(0);
    await readerPage.context().close();
  }, 60_000);
});
