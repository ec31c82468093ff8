import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { type PointSource, writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { createSite } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';
import { type Camera, screenOf, type Vector3 } from '../support/viewer-measuring.js';

/** A level floor 10 m square at z = 50, a point every 0.1 m: wherever a click lands on it, a point is within a few pixels. */
const ORIGIN = { x: 1000, y: 2000, z: 50 };
const SIDE = 101;
const FLOOR: PointSource = {
  origin: ORIGIN,
  pointAt: (i) => ({
    x: ORIGIN.x + (i % SIDE) * 0.1,
    y: ORIGIN.y + Math.floor(i / SIDE) * 0.1,
    z: ORIGIN.z,
    r: 200,
    g: 120 + (i % 7) * 10,
    b: 40,
    intensity: 1000,
  }),
};
const at = (x: number, y: number): Vector3 => ({ x: ORIGIN.x + x, y: ORIGIN.y + y, z: ORIGIN.z });

/**
 * The twin screen's toolbar and measurements panel (docs/console.md, "Twin"): the toolbar's
 * buttons choose the framed viewer's tool, colour mode and clip box through its postMessage API,
 * a measurement finished in the view is saved through the API, the panel lists values with units,
 * renames and deletes; a reader measures but sees no write control.
 */
describe('the web console: measuring in a twin', { timeout: 90_000 }, () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let siteId: string;
  let reader: { email: string; password: string };

  const measurements = async () =>
    (await org.admin.get(`/v1/twin/${siteId}/measurements`)).body as { id: string; name: string; [key: string]: any }[];
  const viewerFrame = (target: Page): Frame => {
    const frame = target.frames().find((candidate) => candidate.url().includes('/viewer/'));
    if (!frame) throw new Error('no viewer frame');
    return frame;
  };
  const status = (target: Page) => viewerFrame(target).evaluate(() => (window as any).rdpViewerStatus());
  const toolButton = (target: Page, name: string) =>
    target.getByRole('group', { name: 'Tools of the 3D view' }).getByRole('button', { name, exact: true });

  async function openTwin(target: Page) {
    await target.goto(`${t.origin}/console/twins/${siteId}`);
    await expect.poll(() => target.textContent('main h1')).toBe('Twin of Plant');
    await target.locator('.viewer-status', { hasText: '3D view ready: Plant' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => toolButton(target, 'Select').getAttribute('aria-pressed')).toBe('true');
  }

  /** Chooses the distance tool and clicks the scan at the twin points (the view framing them: a measurement selected). */
  /** Selects a measurement in the panel and waits for the view's flight to it to land (clicks go where it lands). */
  async function selectInPanel(target: Page, name: string) {
    const landed = (await status(target)).flightsLanded as number;
    await target.getByRole('list', { name: 'Measurements' }).getByRole('button', { name, exact: true }).click();
    await expect.poll(async () => (await status(target)).flightsLanded, { timeout: 10_000 }).toBeGreaterThan(landed);
  }

  async function measureInView(target: Page, points: Vector3[]) {
    await expect.poll(async () => (await status(target)).layers[0]?.settled, { timeout: 30_000 }).toBe(true);
    await toolButton(target, 'Distance').click();
    await expect.poll(async () => (await status(target)).tool).toBe('distance');
    const camera: Camera = (await status(target)).camera;
    const box = await target.locator('iframe').boundingBox();
    if (!box) throw new Error('no iframe');
    for (const point of points) {
      // Inside the iframe's 1 px border.
      const { x, y } = screenOf(point, camera, box.width - 2, box.height - 2);
      await target.mouse.click(box.x + 1 + x, box.y + 1 + y);
    }
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
      sampleBytes((file) => writeLas(file, SIDE * SIDE, '1.2', { source: FLOOR })),
    ]);
    reader = readerPerson;
    const { bundleId } = await processedPointCloud(org, siteId, { name: 'floor.las', bytes: las });
    expect((await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`)).status).toBe(201);
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("the toolbar's buttons choose the viewer's tool, colour mode and clip box", async () => {
    await openTwin(page);
    await toolButton(page, 'Height').click();
    await expect.poll(async () => (await status(page)).tool).toBe('height');
    await expect.poll(() => toolButton(page, 'Height').getAttribute('aria-pressed')).toBe('true');
    expect(await toolButton(page, 'Select').getAttribute('aria-pressed')).toBe('false');
    // By keyboard: the section plane tool, then back to select.
    await toolButton(page, 'Section plane').focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await status(page)).tool).toBe('sectionPlane');
    await toolButton(page, 'Select').focus();
    await page.keyboard.press('Space');
    await expect.poll(async () => (await status(page)).tool).toBe('select');

    await page.getByLabel('Colour points by').selectOption({ label: 'Elevation' });
    await expect.poll(async () => (await status(page)).colorMode).toBe('elevation');
    await page.getByLabel('Colour points by').selectOption({ label: 'Scan colours (RGB)' });
    await expect.poll(async () => (await status(page)).colorMode).toBe('rgb');

    await page.getByRole('button', { name: 'Clip box…' }).click();
    const clip = page.getByRole('dialog', { name: 'Clip box' });
    await expectAccessible(page);
    const size = clip.getByRole('group', { name: 'Size (metres)' });
    await size.getByLabel('X', { exact: true }).fill('4');
    await clip.getByRole('button', { name: 'Clip', exact: true }).click();
    await clip.waitFor({ state: 'detached' });
    await expect.poll(async () => (await status(page)).clipBox).toMatchObject({ size: { x: 4 } });
    await page.getByRole('button', { name: 'Remove the clip box' }).click();
    await expect.poll(async () => (await status(page)).clipBox).toBeNull();
  });

  it('lists a measurement made through the API with its value and unit, the view draws it; selecting it flies the view to it', async () => {
    const posted = await org.admin.post(`/v1/twin/${siteId}/measurements`, {
      name: 'Floor diagonal',
      kind: 'distance',
      points: [at(1, 1), at(4, 5)],
    });
    expect(posted.status).toBe(201);
    const area = await org.admin.post(`/v1/twin/${siteId}/measurements`, {
      name: 'Bay floor',
      kind: 'area',
      points: [at(0, 0), at(3, 0), at(3, 2), at(0, 2)],
    });
    expect(area.status).toBe(201);
    await openTwin(page);
    const list = page.getByRole('list', { name: 'Measurements' });
    await expect
      .poll(() => list.getByRole('listitem').allTextContents())
      .toEqual([expect.stringContaining('Floor diagonalDistance: 5.00 m'), expect.stringContaining('Bay floorArea: 6.00 m²')]);
    // The view draws the saved ones as it loads; a click on one's label selects it in the list.
    expect((await status(page)).savedMeasurements).toEqual([posted.body.id, area.body.id]);
    const bayLabel = viewerFrame(page).locator(`.rdp-measurement[data-id="${area.body.id}"]`);
    expect(await bayLabel.getAttribute('title')).toBe('Bay floor: 6.00 m²');
    await bayLabel.click();
    await expect
      .poll(() => list.getByRole('button', { name: 'Bay floor', exact: true }).getAttribute('aria-pressed'))
      .toBe('true');
    // Selecting one in the list is a flight (flyTo) to its points: the camera's target passes between, frame by frame.
    const start: Vector3 = (await status(page)).camera.target;
    await viewerFrame(page).evaluate(() => {
      const view = window as any;
      view.targets = [];
      const record = () => {
        view.targets.push(view.rdpViewerStatus().camera.target);
        if (view.targets.length < 1000) requestAnimationFrame(record);
      };
      requestAnimationFrame(record);
    });
    await list.getByRole('button', { name: 'Floor diagonal', exact: true }).click();
    expect(await list.getByRole('button', { name: 'Floor diagonal', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await expect
      .poll(async () => (await status(page)).camera.target)
      .toEqual({ x: expect.closeTo(1002.5, 1), y: expect.closeTo(2003, 1), z: expect.closeTo(50, 1) });
    const passed = ((await viewerFrame(page).evaluate(() => (window as any).targets)) as Vector3[]).filter(
      (target) =>
        Math.hypot(target.x - start.x, target.y - start.y) > 0.01 && Math.hypot(target.x - 1002.5, target.y - 2003) > 0.01,
    );
    expect(passed.length).toBeGreaterThan(2);
    await expect
      .poll(() => page.getByRole('region', { name: 'Metadata of Floor diagonal' }).textContent())
      .toContain('This measurement has no metadata type.');
    await expectAccessible(page);
  });

  it('saves what the distance tool measures in the view through the API, and lists it', async () => {
    await measureInView(page, [at(2, 2), at(3, 4)]);
    await expect.poll(async () => (await measurements()).length).toBe(3);
    const saved = (await measurements())[2]!;
    expect(saved).toMatchObject({ kind: 'distance', unit: 'm', name: 'Distance 1' });
    const [p0, p1] = saved.points as Vector3[];
    // The points are the scan's (snapped), near where the clicks were; the value is their distance.
    expect(Math.hypot(p0!.x - at(2, 2).x, p0!.y - at(2, 2).y)).toBeLessThan(0.3);
    expect(Math.hypot(p1!.x - at(3, 4).x, p1!.y - at(3, 4).y)).toBeLessThan(0.3);
    expect(saved.value).toBeCloseTo(Math.hypot(p1!.x - p0!.x, p1!.y - p0!.y, p1!.z - p0!.z), 6);
    await expect.poll(() => page.textContent('main [role=status]')).toContain('Measurement Distance 1 saved');
    // The view drew it unsaved; once the console saved it, the view shows the saved one in its place.
    await expect.poll(async () => (await status(page)).savedMeasurements).toContain(saved.id);
    const drawn = viewerFrame(page).locator('.rdp-measurement:not(.rdp-measurement-draft)');
    expect(await drawn.evaluateAll((labels) => labels.map((label) => label.getAttribute('data-id')))).toEqual(
      (await measurements()).map((measurement) => measurement.id),
    );
    await expect
      .poll(() => page.getByRole('list', { name: 'Measurements' }).getByRole('listitem').last().textContent())
      .toContain(`Distance: ${saved.value.toFixed(2)} m`);
    // Escape in the view leaves the tool: the viewer's toolChanged shows on the toolbar.
    await page.keyboard.press('Escape');
    await expect.poll(() => toolButton(page, 'Select').getAttribute('aria-pressed')).toBe('true');
    expect(await toolButton(page, 'Distance').getAttribute('aria-pressed')).toBe('false');
  });

  it('renames and deletes a measurement, and the API holds the change; the view redraws them without loading again', async () => {
    const [diagonal, bay] = await measurements();
    await viewerFrame(page).evaluate(() => {
      (window as any).sameLoad = true;
    });
    await page.getByRole('button', { name: 'Edit Floor diagonal' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Floor diagonal' });
    await edit.getByLabel('Name', { exact: true }).fill('Hall diagonal');
    await expectAccessible(page);
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await edit.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await org.admin.get(`/v1/twin/${siteId}/measurements/${diagonal!.id}`)).body)
      .toMatchObject({
        name: 'Hall diagonal',
        value: 5,
        unit: 'm',
      });
    await expect
      .poll(() => page.getByRole('list', { name: 'Measurements' }).getByRole('button').allTextContents())
      .toContain('Hall diagonal');
    await expect
      .poll(() => viewerFrame(page).locator(`.rdp-measurement[data-id="${diagonal!.id}"]`).getAttribute('title'))
      .toBe('Hall diagonal: 5.00 m');

    await page.getByRole('button', { name: 'Delete Bay floor' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Bay floor?' });
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(async () => (await org.admin.get(`/v1/twin/${siteId}/measurements/${bay!.id}`)).status).toBe(404);
    await expect
      .poll(() => page.getByRole('list', { name: 'Measurements' }).getByRole('button').allTextContents())
      .not.toContain('Bay floor');
    await expect.poll(async () => (await status(page)).savedMeasurements).not.toContain(bay!.id);
    expect(await viewerFrame(page).locator(`.rdp-measurement[data-id="${bay!.id}"]`).count()).toBe(0);
    expect(await viewerFrame(page).evaluate(() => (window as any).sameLoad)).toBe(true);
  });

  it('saves a measurement made in a draft into the draft only', async () => {
    await page.getByRole('button', { name: 'New draft' }).click();
    const create = page.getByRole('dialog', { name: 'New draft' });
    await create.getByLabel('Draft name', { exact: true }).fill('Survey');
    await create.getByRole('button', { name: 'Create draft', exact: true }).click();
    await expect.poll(() => page.textContent('#draft-heading')).toBe('Draft: Survey');
    const draftId = new URL(page.url()).searchParams.get('draft') as string;
    await page.locator('.viewer-status', { hasText: '3D view ready: Plant' }).waitFor({ timeout: 30_000 });
    await selectInPanel(page, 'Hall diagonal');
    await measureInView(page, [at(1, 3), at(4, 3)]);
    await expect
      .poll(() => page.getByRole('list', { name: 'Changes in this draft' }).getByRole('listitem').allTextContents())
      .toEqual(['Adds the measurement Distance 1']);
    expect((await org.admin.get(`/v1/twin/${draftId}/measurements`)).body).toHaveLength(3);
    expect(await measurements()).toHaveLength(2);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Discard draft' }).click();
    const discard = page.getByRole('dialog', { name: 'Discard Survey?' });
    await discard.getByRole('button', { name: 'Discard', exact: true }).click();
    await discard.waitFor({ state: 'detached' });
  });

  it('gives a reader the tools and the list, and no write control', async () => {
    const readerPage = await freshPage(browser);
    await signIntoConsole(readerPage, t, reader);
    await openTwin(readerPage);
    const list = readerPage.getByRole('list', { name: 'Measurements' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(2);
    expect((await status(readerPage)).savedMeasurements).toEqual((await measurements()).map((measurement) => measurement.id));
    await toolButton(readerPage, 'Angle').click();
    await expect.poll(async () => (await status(readerPage)).tool).toBe('angle');
    // A reader's measurement is reported, not saved.
    await selectInPanel(readerPage, 'Hall diagonal');
    await measureInView(readerPage, [at(2, 2), at(3, 4)]);
    await expect.poll(() => readerPage.textContent('main [role=status]')).toContain('Not saved: you may not change this twin.');
    expect(await measurements()).toHaveLength(2);
    const labels = await readerPage
      .getByRole('main')
      .getByRole('button')
      .evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label') ?? element.textContent ?? ''));
    expect(labels).toContain('Hall diagonal');
    expect(labels.filter((name) => /^(Edit|Delete|New|Publish|Discard) /.test(name.trim()))).toEqual([]);
    await expectAccessible(readerPage);
    await readerPage.context().close();
  });
});
