import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processPointCloud } from '../../src/processing/point-cloud-processor.js';
import { launchBrowser } from '../support/browser.js';
import { type DistancePoint, writeDistancesPly } from '../support/distance-ply.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { writeTexturedObj } from '../support/mesh-samples.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedMeshSession } from '../support/processed-mesh.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { sampleBytes } from '../support/uploads.js';
import {
  at,
  type Camera,
  canvasPixels,
  differingPixels,
  ORIGIN,
  PER_PLANE,
  PLANES,
  paintedAround,
  paintedPixels,
  planePointAt,
  type Recorded,
  screenOf,
  type Vector3,
  withScanAttributes,
} from '../support/viewer-measuring.js';
import {
  type BuiltViewer,
  buildViewerForTest,
  type PageServer,
  pageServer,
  parentPage,
  viewerRoute,
} from '../support/viewer-pages.js';

describe("the viewer's measuring tools in chromium, on two planes 10 m apart, through rdp-embed.js", () => {
  let built: BuiltViewer;
  let viewerServer: PageServer;
  let parentServer: PageServer;
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let frame: Frame;
  let siteId: string;
  let camera: Camera;
  let embedToken: string;

  const events = (): Promise<Recorded[]> => page.evaluate(() => (window as any).events);
  const eventsNamed = async (name: string) => (await events()).filter((event) => event.name === name);
  const status = () => frame.evaluate(() => (window as any).rdpViewerStatus());
  const clickAt = async (point: Vector3) => {
    const { x, y } = screenOf(point, camera);
    await page.mouse.click(x, y);
  };

  beforeAll(async () => {
    built = await buildViewerForTest();
    const apiBase = { value: '' };
    let apiOrigin = '';
    let allowedOrigins: string[] = [];
    viewerServer = await pageServer(built, (url) => viewerRoute(apiBase.value, apiOrigin, () => allowedOrigins)(url));
    parentServer = await pageServer(built, (url) => {
      const iframeUrl = url.searchParams.get('iframe');
      return url.pathname === '/' && iframeUrl ? { html: parentPage(viewerServer.origin, iframeUrl) } : undefined;
    });
    allowedOrigins = [parentServer.origin];
    const [platform, launched] = await Promise.all([
      startPlatform({ RDP_CORS_ORIGINS: viewerServer.origin }, { worker: true }),
      launchBrowser(),
    ]);
    t = platform;
    browser = launched;
    apiBase.value = `${t.regionUrl('eu')}/v1`;
    apiOrigin = t.origin;
    org = await createOrg(t, { storageQuota: 50 * 1024 * 1024 });
    siteId = (await createTree(org)).siteId;
    const las = await sampleBytes((file) => writeLas(file, 2 * PER_PLANE, '1.2', { source: PLANES }));
    const { bundleId } = await processedPointCloud(org, siteId, { name: 'planes.las', bytes: las });
    expect((await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`)).status).toBe(201);
    // An embed session's token: read-only, so the viewer reports what it measures and saves nothing.
    const session = await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: [parentServer.origin] });
    expect(session.status).toBe(201);
    embedToken = session.body.token;
    page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=${embedToken}`;
    await page.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
    await page.waitForFunction(
      () => (window as any).events.some((event: { name: string }) => event.name === 'ready'),
      undefined,
      {
        timeout: 30_000,
      },
    );
    frame = page.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
    // Beside the planes' far end, looking across them: both planes show, the far one past the near one's end.
    camera = await page.evaluate((view) => (window as any).viewer.setCamera(view), {
      position: at(40, -20, 5),
      target: at(10, 5, 5),
      fov: 60,
    } satisfies Camera);
    await frame.waitForFunction(
      (points) => {
        const layer = (window as any).rdpViewerStatus().layers[0];
        return layer?.settled && layer.pointsLoaded === points;
      },
      2 * PER_PLANE,
      { timeout: 30_000 },
    );
    expect(failures).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await viewerServer?.close();
    await parentServer?.close();
    await built?.remove();
  });

  it('setTool chooses a tool and sends toolChanged; an unknown tool is refused', async () => {
    expect(await page.evaluate(() => (window as any).viewer.setTool('distance'))).toBe('distance');
    await page.waitForFunction(() => (window as any).events.some((event: { name: string }) => event.name === 'toolChanged'));
    expect((await eventsNamed('toolChanged')).map((event) => event.payload)).toEqual([{ tool: 'distance' }]);
    expect((await status()).tool).toBe('distance');
    await expect(page.evaluate(() => (window as any).viewer.setTool('laser'))).rejects.toThrow(/no tool is named laser/);
  });

  it('measures 10.00 m between the planes, live as the cursor moves; Backspace takes a point back; the parent hears measurementCreated', async () => {
    const near = at(18, 0, 5);
    const far = at(18, 10, 5);
    await clickAt(near);
    const measuring = (await status()).measuring;
    expect(measuring.points).toHaveLength(1);
    expect(Math.abs(measuring.points[0].y - near.y)).toBeLessThan(0.001);
    // Live: the cursor over the far plane shows the value with its unit.
    const farOnScreen = screenOf(far, camera);
    await page.mouse.move(farOnScreen.x, farOnScreen.y);
    await frame.waitForFunction(() => /^10\.0\d m$/.test((window as any).rdpViewerStatus().measuring.label ?? ''));
    expect(await frame.locator('.rdp-measurement-draft').textContent()).toMatch(/^10\.0\d m$/);
    await page.keyboard.press('Backspace');
    expect((await status()).measuring.points).toEqual([]);

    await clickAt(near);
    await clickAt(far);
    await page.waitForFunction(() =>
      (window as any).events.some((event: { name: string }) => event.name === 'measurementCreated'),
    );
    const [created] = await eventsNamed('measurementCreated');
    const { measurement } = created!.payload;
    expect(measurement).toMatchObject({ id: null, kind: 'distance', unit: 'm', name: 'Distance 1' });
    expect(Math.abs(measurement.value - 10)).toBeLessThan(0.02);
    const [p0, p1] = measurement.points as Vector3[];
    expect(measurement.value).toBeCloseTo(Math.hypot(p1!.x - p0!.x, p1!.y - p0!.y, p1!.z - p0!.z), 9);
    // Snapped to points of the scan (on the 0.1 m grid, not where the ray passes), each on its plane.
    for (const point of [p0!, p1!]) {
      for (const axis of ['x', 'z'] as const) {
        const steps = (point[axis] - ORIGIN[axis]) * 10;
        expect(Math.abs(steps - Math.round(steps))).toBeLessThan(0.01);
      }
    }
    expect(Math.abs(p0!.y - near.y)).toBeLessThan(0.001);
    expect(Math.abs(p1!.y - far.y)).toBeLessThan(0.001);
    expect((await status()).measurements).toHaveLength(1);
    // The tool stays on for the next measurement, its points cleared.
    expect((await status()).measuring.points).toEqual([]);
  });

  it('finishes a polyline on Enter, selects a measurement by its label, and Escape goes back to select', async () => {
    await page.evaluate(() => (window as any).viewer.setTool('polyline'));
    const corners = [at(18, 0, 2), at(18, 0, 8), at(12, 0, 8)];
    for (const corner of corners) await clickAt(corner);
    expect((await status()).measuring.points).toHaveLength(3);
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => (window as any).events.filter((event: { name: string }) => event.name === 'measurementCreated').length === 2,
    );
    const polyline = (await eventsNamed('measurementCreated'))[1]!.payload.measurement;
    expect(polyline).toMatchObject({ kind: 'polyline', unit: 'm', id: null });
    expect(Math.abs(polyline.value - 12)).toBeLessThan(0.05);

    await frame.locator('.rdp-measurement:not(.rdp-measurement-draft)', { hasText: /^10\.0\d m$/ }).click();
    await page.waitForFunction(() =>
      (window as any).events.some((event: { name: string }) => event.name === 'measurementSelected'),
    );
    expect((await eventsNamed('measurementSelected')).map((event) => event.payload)).toEqual([{ id: null }]);

    await page.keyboard.press('Escape');
    await frame.waitForFunction(() => (window as any).rdpViewerStatus().tool === 'select');
    await page.waitForFunction(
      () => (window as any).events.filter((event: { name: string }) => event.name === 'toolChanged').length === 3,
    );
    expect((await eventsNamed('toolChanged')).map((event) => event.payload.tool)).toEqual(['distance', 'polyline', 'select']);
  });

  it('colours the points by setColorMode (rgb, elevation, single give different pixels) and hides the points outside a clip box', async () => {
    const nextFrames = () =>
      frame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await nextFrames();
    const rgb = await canvasPixels(frame);
    expect(await page.evaluate(() => (window as any).viewer.setColorMode('elevation'))).toBe('elevation');
    await nextFrames();
    const elevation = await canvasPixels(frame);
    await page.evaluate(() => (window as any).viewer.setColorMode('single'));
    await nextFrames();
    const single = await canvasPixels(frame);
    for (const [a, b] of [
      [rgb, elevation],
      [rgb, single],
      [elevation, single],
    ] as const) {
      expect(differingPixels(a, b)).toBeGreaterThan(5_000);
    }
    await expect(page.evaluate(() => (window as any).viewer.setColorMode('infrared'))).rejects.toThrow(/no colour mode/);
    // These tiles hold no classification: the legend says so (the ASPRS names show for tiles with _CLASSIFICATION).
    await page.evaluate(() => (window as any).viewer.setColorMode('classification'));
    expect(await frame.locator('#rdp-legend').textContent()).toBe('No classification in the points shown.');
    expect(await frame.locator('#rdp-legend').isVisible()).toBe(true);
    await page.evaluate(() => (window as any).viewer.setColorMode('rgb'));
    expect(await frame.locator('#rdp-legend').isVisible()).toBe(false);
    await nextFrames();
    expect(differingPixels(rgb, await canvasPixels(frame))).toBe(0);

    // A box around the near plane's first half: the far plane and the near plane's other half go, without a request.
    const kept = screenOf(at(5, 0, 5), camera);
    const clippedNear = screenOf(at(15, 0, 5), camera);
    const clippedFar = screenOf(at(15, 10, 2), camera);
    for (const place of [kept, clippedNear, clippedFar]) expect(paintedAround(rgb, place.x, place.y)).toBeGreaterThan(0);
    const requests: string[] = [];
    frame.page().on('request', (request) => requests.push(request.url()));
    const box = { center: at(5, 0, 5), size: { x: 10, y: 1, z: 11 }, rotation: { x: 0, y: 0, z: 0, w: 1 } };
    expect(await page.evaluate((clip) => (window as any).viewer.setClipBox(clip), box)).toEqual(box);
    await nextFrames();
    const clipped = await canvasPixels(frame);
    expect(paintedAround(clipped, kept.x, kept.y)).toBeGreaterThan(0);
    expect(paintedAround(clipped, clippedNear.x, clippedNear.y)).toBe(0);
    expect(paintedAround(clipped, clippedFar.x, clippedFar.y)).toBe(0);
    expect(requests).toEqual([]);
    // Measuring snaps to what is drawn: nothing under the cursor where the box hides the points.
    await page.evaluate(() => (window as any).viewer.setTool('distance'));
    await clickAt(at(15, 0, 5));
    expect((await status()).measuring.points).toEqual([]);
    await clickAt(at(5, 0, 5));
    expect((await status()).measuring.points).toHaveLength(1);
    await page.keyboard.press('Escape');
    await frame.waitForFunction(() => (window as any).rdpViewerStatus().tool === 'select');
    await expect(
      page.evaluate(() =>
        (window as any).viewer.setClipBox({
          center: { x: 0, y: 0, z: 0 },
          size: { x: 0, y: 1, z: 1 },
          rotation: { x: 0, y: 0, z: 0, w: 1 },
        }),
      ),
    ).rejects.toThrow(/size must be above 0/);
    expect(await page.evaluate(() => (window as any).viewer.setClipBox(null))).toBeNull();
    await nextFrames();
    expect(differingPixels(rgb, await canvasPixels(frame))).toBe(0);

    // The clip box tool: a click centres a cube on the snapped point, its side half the camera's distance to it.
    await page.evaluate(() => (window as any).viewer.setTool('clipBox'));
    await clickAt(at(5, 0, 5));
    await frame.waitForFunction(() => (window as any).rdpViewerStatus().clipBox !== null);
    const placed = (await status()).clipBox as { center: Vector3; size: Vector3 };
    const distance = Math.hypot(
      placed.center.x - camera.position.x,
      placed.center.y - camera.position.y,
      placed.center.z - camera.position.z,
    );
    expect(Math.abs(placed.center.y - ORIGIN.y)).toBeLessThan(0.001);
    expect(Math.abs(placed.center.x - at(5, 0, 5).x)).toBeLessThan(0.5);
    expect(placed.size.x).toBeCloseTo(distance / 2, 6);
    expect(placed.size).toEqual({ x: placed.size.x, y: placed.size.x, z: placed.size.x });
    await nextFrames();
    const boxed = await canvasPixels(frame);
    const beyond = screenOf(at(18, 10, 2), camera);
    expect(paintedAround(rgb, beyond.x, beyond.y)).toBeGreaterThan(0);
    expect(paintedAround(boxed, kept.x, kept.y)).toBeGreaterThan(0);
    expect(paintedAround(boxed, beyond.x, beyond.y)).toBe(0);
    await page.keyboard.press('Backspace');
    expect((await status()).clipBox).toBeNull();
    await page.keyboard.press('Escape');
    await frame.waitForFunction(() => (window as any).rdpViewerStatus().tool === 'select');
    await nextFrames();
    expect(differingPixels(rgb, await canvasPixels(frame))).toBe(0);
  });

  it('cuts a slice with the section plane tool and thins the points to a point budget, on the GPU', async () => {
    const nextFrames = () =>
      frame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await nextFrames();
    const full = await canvasPixels(frame);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));

    expect(await page.evaluate(() => (window as any).viewer.setTool('sectionPlane'))).toBe('sectionPlane');
    const through = at(5, 0, 5);
    await clickAt(through);
    await frame.waitForFunction(() => (window as any).rdpViewerStatus().section !== null);
    expect(Math.abs((await status()).section.point.y - through.y)).toBeLessThan(0.001);
    await nextFrames();
    const sliced = await canvasPixels(frame);
    const onSlice = screenOf(through, camera);
    const offSlice = screenOf(at(15, 0, 5), camera);
    expect(paintedAround(full, offSlice.x, offSlice.y)).toBeGreaterThan(0);
    expect(paintedAround(sliced, onSlice.x, onSlice.y)).toBeGreaterThan(0);
    expect(paintedAround(sliced, offSlice.x, offSlice.y)).toBe(0);
    expect(paintedPixels(sliced)).toBeLessThan(paintedPixels(full) * 0.2);
    await page.keyboard.press('Backspace');
    expect((await status()).section).toBeNull();
    await nextFrames();
    expect(differingPixels(full, await canvasPixels(frame))).toBe(0);
    await page.keyboard.press('Escape');
    await frame.waitForFunction(() => (window as any).rdpViewerStatus().tool === 'select');

    // 10,000 of the 40,602 points shown: about a quarter of the painted pixels.
    expect((await status()).pointsShown).toBe(2 * PER_PLANE);
    expect(await page.evaluate(() => (window as any).viewer.setPointBudget(10_000))).toBe(10_000);
    await nextFrames();
    const thinned = paintedPixels(await canvasPixels(frame));
    expect(thinned).toBeLessThan(paintedPixels(full) * 0.5);
    expect(thinned).toBeGreaterThan(paintedPixels(full) * 0.1);
    await expect(page.evaluate(() => (window as any).viewer.setPointBudget(0))).rejects.toThrow(/at least 1/);
    await page.evaluate(() => (window as any).viewer.setPointBudget(5_000_000));
    await nextFrames();
    expect(differingPixels(full, await canvasPixels(frame))).toBe(0);
    expect(requests).toEqual([]);
  });

  it('draws wider points with setPointSize and shades them with eye-dome lighting', async () => {
    const nextFrames = () =>
      frame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await nextFrames();
    const one = await canvasPixels(frame);
    expect(await page.evaluate(() => (window as any).viewer.setPointSize(3))).toBe(3);
    await nextFrames();
    const three = await canvasPixels(frame);
    expect(paintedPixels(three)).toBeGreaterThan(paintedPixels(one) * 1.2);
    await expect(page.evaluate(() => (window as any).viewer.setPointSize(0))).rejects.toThrow(/from 1 to 20/);

    expect(await page.evaluate(() => (window as any).viewer.setEyeDomeLighting(true))).toBe(true);
    await nextFrames();
    const lit = await canvasPixels(frame);
    expect((await status()).eyeDomeLighting).toBe(true);
    // Where the near plane's points stand before the far plane's, the far ones darken.
    const brightness = (pixels: Buffer) => {
      let sum = 0;
      for (let k = 0; k < pixels.length; k += 4) sum += pixels[k]! + pixels[k + 1]! + pixels[k + 2]!;
      return sum;
    };
    expect(differingPixels(three, lit)).toBeGreaterThan(500);
    expect(brightness(lit)).toBeLessThan(brightness(three) * 0.98);
    // Shaded, not blacked out: most of the points keep their colour.
    expect(brightness(lit)).toBeGreaterThan(brightness(three) * 0.7);
    expect(paintedPixels(lit)).toBeGreaterThan(paintedPixels(three) * 0.9);
    await page.evaluate(() => (window as any).viewer.setEyeDomeLighting(false));
    await nextFrames();
    expect(differingPixels(three, await canvasPixels(frame))).toBe(0);
    await page.evaluate(() => (window as any).viewer.setPointSize(1));
    await nextFrames();
    expect(differingPixels(one, await canvasPixels(frame))).toBe(0);
  });

  it("colours by the tiles' intensity and classification, with the ASPRS names in the legend; a writable token's measurement goes to POST .../measurements", async () => {
    const second = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    await second.route('**/*.glb', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: Buffer.from(await withScanAttributes(await response.body())) });
    });
    // The organization admin's own token, not an embed session's: the viewer tries to save.
    const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=${org.admin.token as string}`;
    await second.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
    await second.waitForFunction(() => (window as any).viewer !== undefined, undefined, { timeout: 30_000 });
    const secondFrame = second.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
    await second.evaluate((view) => (window as any).viewer.setCamera(view), camera);
    await secondFrame.waitForFunction(
      (points) => {
        const layer = (window as any).rdpViewerStatus().layers[0];
        return layer?.settled && layer.pointsLoaded === points;
      },
      2 * PER_PLANE,
      { timeout: 30_000 },
    );
    // The parent's camera stands: framing the layers once they load never replaces a camera the parent chose.
    const shown = (await secondFrame.evaluate(() => (window as any).rdpViewerStatus().camera)) as Camera;
    for (const axis of ['x', 'y', 'z'] as const) {
      expect(shown.position[axis]).toBeCloseTo(camera.position[axis], 6);
      expect(shown.target[axis]).toBeCloseTo(camera.target[axis], 6);
    }
    const nextFrames = () =>
      secondFrame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await nextFrames();
    const rgb = await canvasPixels(secondFrame);
    await second.evaluate(() => (window as any).viewer.setColorMode('classification'));
    await nextFrames();
    const classification = await canvasPixels(secondFrame);
    expect(differingPixels(rgb, classification)).toBeGreaterThan(5_000);
    expect(await secondFrame.locator('#rdp-legend .rdp-legend-class').allTextContents()).toEqual(['2 Ground', '6 Building']);
    // Every painted pixel is Ground's sienna or Building's orange.
    const colours = new Set<string>();
    for (let k = 0; k < classification.length; k += 4) {
      const [r, g, b] = [classification[k]!, classification[k + 1]!, classification[k + 2]!];
      if (Math.abs(r - 0x20) + Math.abs(g - 0x24) + Math.abs(b - 0x28) > 12) colours.add(`${r},${g},${b}`);
    }
    expect([...colours].sort()).toEqual(['160,82,45', '255,140,0']);
    await second.evaluate(() => (window as any).viewer.setColorMode('intensity'));
    await nextFrames();
    const intensity = await canvasPixels(secondFrame);
    expect(differingPixels(rgb, intensity)).toBeGreaterThan(5_000);
    expect(differingPixels(classification, intensity)).toBeGreaterThan(5_000);
    // Intensity 0.5 everywhere: one grey.
    const greys = new Set<string>();
    for (let k = 0; k < intensity.length; k += 4) {
      const [r, g, b] = [intensity[k]!, intensity[k + 1]!, intensity[k + 2]!];
      if (Math.abs(r - 0x20) + Math.abs(g - 0x24) + Math.abs(b - 0x28) > 12) greys.add(`${r},${g},${b}`);
    }
    expect(greys.size).toBe(1);
    const [grey] = [...greys][0]!.split(',').map(Number);
    expect([...greys][0]).toBe(`${grey},${grey},${grey}`);
    expect(await secondFrame.locator('#rdp-legend').isVisible()).toBe(false);

    // Saving (docs/design/measurements.md): {name, kind, points} posted with the token, value and
    // unit left to the platform; the parent receives the measurement the API answered.
    const posts: { url: string; body: unknown; authorization?: string }[] = [];
    second.on('request', (request) => {
      if (request.method() === 'POST') {
        posts.push({ url: request.url(), body: request.postDataJSON(), authorization: request.headers().authorization });
      }
    });
    const answers: { status: number; body: Promise<unknown> }[] = [];
    second.on('response', (response) => {
      if (response.request().method() === 'POST')
        answers.push({ status: response.status(), body: response.json().catch(() => null) });
    });
    await second.evaluate(() => (window as any).viewer.setTool('height'));
    const top = at(18, 0, 9);
    const bottom = at(18, 0, 1);
    for (const point of [top, bottom]) {
      const { x, y } = screenOf(point, camera);
      await second.mouse.click(x, y);
    }
    await second.waitForFunction(() =>
      (window as any).events.some((event: { name: string }) => event.name === 'measurementCreated'),
    );
    const { measurement } = ((await second.evaluate(() => (window as any).events)) as Recorded[]).find(
      (event) => event.name === 'measurementCreated',
    )!.payload;
    expect(posts).toHaveLength(1);
    expect(posts[0]!.url).toBe(`${t.regionUrl('eu')}/v1/twin/${siteId}/measurements`);
    expect(posts[0]!.authorization).toBe(`Bearer ${org.admin.token as string}`);
    const body = posts[0]!.body as { name: string; kind: string; points: Vector3[] };
    expect(Object.keys(body).sort()).toEqual(['kind', 'name', 'points']);
    expect(body).toMatchObject({ name: 'Height 1', kind: 'height' });
    expect(Math.abs(Math.abs(body.points[0]!.z - body.points[1]!.z) - 8)).toBeLessThan(0.05);
    await expect.poll(() => answers.length, { timeout: 10_000 }).toBe(1);
    expect(answers[0]!.status).toBe(201);
    expect(measurement).toEqual(await answers[0]!.body);
    // The platform computed the value from the snapped points: the height between them.
    const saved = await org.admin.get(`/v1/twin/${siteId}/measurements/${measurement.id}`);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ kind: 'height', unit: 'm', points: body.points });
    expect(saved.body.value).toBeCloseTo(Math.abs(body.points[0]!.z - body.points[1]!.z), 9);
    await second.close();
  }, 60_000);

  it("draws the twin's saved measurements as it loads: a label selects one, flyTo frames it, showMeasurements draws the parent's changes", async () => {
    const saved = (name: string, kind: string, points: Vector3[]) =>
      org.admin.post(`/v1/twin/${siteId}/measurements`, { name, kind, points }).then((answer) => {
        expect(answer.status).toBe(201);
        return answer.body as { id: string };
      });
    const listed = async () =>
      ((await org.admin.get(`/v1/twin/${siteId}/measurements`)).body as { id: string }[]).map((m) => m.id);
    const gap = await saved('Gap', 'distance', [at(5, 0, 3), at(5, 10, 3)]);
    const post = await saved('Post', 'height', [at(12, 0, 1), at(12, 0, 4)]);
    const third = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    try {
      const failures: string[] = [];
      third.on('pageerror', (error) => failures.push(error.message));
      const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=${embedToken}`;
      await third.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
      await third.waitForFunction(
        () => (window as any).events.some((event: { name: string }) => event.name === 'ready'),
        undefined,
        {
          timeout: 30_000,
        },
      );
      const thirdFrame = third.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
      const thirdEvents = async (name: string) =>
        ((await third.evaluate(() => (window as any).events)) as Recorded[]).filter((event) => event.name === name);
      // Drawn by the time the viewer is ready, each with its value, its name in the label's title.
      expect((await thirdFrame.evaluate(() => (window as any).rdpViewerStatus())).savedMeasurements).toEqual(await listed());
      const gapLabel = thirdFrame.locator(`.rdp-measurement[data-id="${gap.id}"]`);
      expect(await gapLabel.textContent()).toBe('10.00 m');
      expect(await gapLabel.getAttribute('title')).toBe('Gap: 10.00 m');
      expect(await thirdFrame.locator(`.rdp-measurement[data-id="${post.id}"]`).textContent()).toBe('3.00 m');
      await gapLabel.click();
      await expect
        .poll(async () => (await thirdEvents('measurementSelected')).map((event) => event.payload))
        .toEqual([{ id: gap.id }]);

      // flyTo a measurement: a flight of durationMs to the box of its points, at least 1 m on each
      // axis (here x and z are flat), seen whole: the framing of a zone's box.
      const { flown, elapsed } = await third.evaluate(async (id) => {
        const started = performance.now();
        const flown = await (window as any).viewer.flyTo(id, { durationMs: 300 });
        return { flown, elapsed: performance.now() - started };
      }, gap.id);
      expect(elapsed).toBeGreaterThanOrEqual(250);
      const middle = at(5, 5, 3);
      for (const axis of ['x', 'y', 'z'] as const) expect(flown.target[axis]).toBeCloseTo(middle[axis], 6);
      const radius = Math.hypot(1, 10, 1) / 2;
      const back = Math.hypot(
        flown.position.x - flown.target.x,
        flown.position.y - flown.target.y,
        flown.position.z - flown.target.z,
      );
      expect(back).toBeCloseTo((radius / Math.sin((flown.fov * Math.PI) / 360)) * 1.05, 3);
      expect((await thirdFrame.evaluate(() => (window as any).rdpViewerStatus())).camera).toEqual(flown);
      await expect(third.evaluate(() => (window as any).viewer.flyTo('no-such-id'))).rejects.toThrow(
        /nothing in this twin has the id no-such-id/,
      );

      // The parent renames one, deletes one and saves another: showMeasurements draws the list as it is now.
      expect((await org.admin.patch(`/v1/twin/${siteId}/measurements/${gap.id}`, { name: 'Gap across' })).status).toBe(200);
      expect((await org.admin.request('DELETE', `/v1/twin/${siteId}/measurements/${post.id}`)).status).toBe(204);
      const beam = await saved('Beam', 'distance', [at(2, 0, 6), at(2, 10, 6)]);
      const now = await listed();
      expect(now).toContain(beam.id);
      const shown = (await third.evaluate(() => (window as any).viewer.showMeasurements())) as { id: string }[];
      expect(shown.map((measurement) => measurement.id)).toEqual(now);
      expect((await thirdFrame.evaluate(() => (window as any).rdpViewerStatus())).savedMeasurements).toEqual(now);
      expect(await thirdFrame.locator(`.rdp-measurement[data-id="${post.id}"]`).count()).toBe(0);
      expect(await gapLabel.getAttribute('title')).toBe('Gap across: 10.00 m');
      expect(await thirdFrame.locator(`.rdp-measurement[data-id="${beam.id}"]`).getAttribute('title')).toBe('Beam: 10.00 m');
      // The deleted one is gone from flyTo too.
      await expect(third.evaluate((id) => (window as any).viewer.flyTo(id), post.id)).rejects.toThrow(/nothing in this twin/);
      expect(failures).toEqual([]);
    } finally {
      await third.close();
    }
  }, 90_000);

  it("with a token that may read but not write: the saved measurements show, a measurement's save is refused, reported with id null and said on the page, and nothing is stored", async () => {
    const { client: reader } = await org.serviceClient({ roleName: 'Organization Reader' });
    const before = ((await org.admin.get(`/v1/twin/${siteId}/measurements`)).body as { id: string }[]).map((m) => m.id);
    const readerPage = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    try {
      const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=${reader.token as string}`;
      await readerPage.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
      await readerPage.waitForFunction(() => (window as any).viewer !== undefined, undefined, { timeout: 30_000 });
      const readerFrame = readerPage.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
      await readerPage.evaluate((view) => (window as any).viewer.setCamera(view), camera);
      await readerFrame.waitForFunction(
        (points) => {
          const layer = (window as any).rdpViewerStatus().layers[0];
          return layer?.settled && layer.pointsLoaded === points;
        },
        2 * PER_PLANE,
        { timeout: 30_000 },
      );
      expect((await readerFrame.evaluate(() => (window as any).rdpViewerStatus())).savedMeasurements).toEqual(before);
      const answers: number[] = [];
      readerPage.on('response', (response) => {
        if (response.request().method() === 'POST') answers.push(response.status());
      });
      await readerPage.evaluate(() => (window as any).viewer.setTool('distance'));
      // Clear of the saved ones' labels, which take the clicks that land on them.
      for (const point of [at(18, 0, 8), at(18, 10, 8)]) {
        const { x, y } = screenOf(point, camera);
        await readerPage.mouse.click(x, y);
      }
      await readerPage.waitForFunction(() =>
        (window as any).events.some((event: { name: string }) => event.name === 'measurementCreated'),
      );
      const { measurement } = ((await readerPage.evaluate(() => (window as any).events)) as Recorded[]).find(
        (event) => event.name === 'measurementCreated',
      )!.payload;
      // Tried (the token is no embed session's), refused by the platform: the parent hears it unsaved.
      expect(answers).toEqual([403]);
      expect(measurement).toMatchObject({ id: null, kind: 'distance', unit: 'm', name: 'Distance 1' });
      expect(Object.keys(measurement).sort()).toEqual(['id', 'kind', 'name', 'points', 'unit', 'value']);
      expect(Math.abs(measurement.value - 10)).toBeLessThan(0.02);
      expect(await readerFrame.locator('.rdp-message[data-key="measurement"]').textContent()).toMatch(
        /^The measurement was not saved \(.*answered 403\): it is shown here only\.$/,
      );
      expect(await readerFrame.locator('.rdp-measurement:not(.rdp-measurement-draft):not([data-id])').textContent()).toMatch(
        /^10\.0\d m$/,
      );
      const after = ((await org.admin.get(`/v1/twin/${siteId}/measurements`)).body as { id: string }[]).map((m) => m.id);
      expect(after).toEqual(before);
    } finally {
      await readerPage.close();
    }
  }, 60_000);

  it('measures on a processed textured mesh layer: a click near a corner snaps to the vertex, one mid-cell to the surface point, saved', async () => {
    // A flat textured square of 100 m, 20 x 20 cells of 5 m (800 triangles, one tile), processed
    // through HTTP by the worker. A mesh's frame is local with origin 0 (docs/twins.md): twin x
    // from 0 to 100, y from -100 to 0 (glTF's z turned), z = 0.
    const meshSiteId = (await createTree(org)).siteId;
    const dir = await mkdtemp(path.join(tmpdir(), 'rdp-viewer-tools-mesh-'));
    let bundleId: string;
    try {
      const files = await writeTexturedObj(dir, 20, 20, { flat: true, textureSize: 64 });
      const processed = await processedMeshSession(org, meshSiteId, 'Flat square', files);
      expect(processed.bundle.state, JSON.stringify(processed.bundle.processings)).toBe('ready');
      bundleId = processed.bundleId;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const layer = await org.admin.request('PUT', `/v1/twin/${meshSiteId}/layers/${bundleId}`);
    expect(layer.status).toBe(201);
    expect(layer.body).toMatchObject({
      kind: 'mesh',
      frame: { origin: { x: 0, y: 0, z: 0 } },
      boundingBox: { min: { x: 0, y: -100, z: 0 }, max: { x: 100, y: 0, z: 0 } },
    });

    const meshPage = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    try {
      const failures: string[] = [];
      meshPage.on('pageerror', (error) => failures.push(error.message));
      const saves: { status: number; body: Promise<unknown> }[] = [];
      meshPage.on('response', (response) => {
        if (response.request().method() === 'POST') saves.push({ status: response.status(), body: response.json() });
      });
      // The admin's token may write: the measurement is saved.
      const iframeUrl = `${viewerServer.origin}/viewer/${meshSiteId}#token=${org.admin.token as string}`;
      await meshPage.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
      await meshPage.waitForFunction(
        () => (window as any).events.some((event: { name: string }) => event.name === 'ready'),
        undefined,
        { timeout: 30_000 },
      );
      const meshFrame = meshPage.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
      const meshStatus = () => meshFrame.evaluate(() => (window as any).rdpViewerStatus());
      // In front of the square and above it, looking down at its middle.
      const view = await meshPage.evaluate((camera) => (window as any).viewer.setCamera(camera), {
        position: { x: 50, y: -150, z: 80 },
        target: { x: 50, y: -50, z: 0 },
        fov: 60,
      } satisfies Camera);
      await meshFrame.waitForFunction(
        () => {
          const layer = (window as any).rdpViewerStatus().layers[0];
          return layer?.settled && layer.trianglesLoaded === 800;
        },
        undefined,
        { timeout: 30_000 },
      );
      const drawnFrom = (await meshStatus()).frames;
      await meshFrame.waitForFunction((frames) => (window as any).rdpViewerStatus().frames >= frames, drawnFrom + 3);
      expect(await meshPage.evaluate(() => (window as any).viewer.setTool('distance'))).toBe('distance');

      // 3 and 2 pixels off the vertex (30, -40, 0), within the snap radius of 6: the vertex itself.
      const corner = { x: 30, y: -40, z: 0 };
      const cornerOnScreen = screenOf(corner, view);
      await meshPage.mouse.click(Math.round(cornerOnScreen.x) + 3, Math.round(cornerOnScreen.y) + 2);
      const placed = (await meshStatus()).measuring.points as Vector3[];
      expect(placed).toHaveLength(1);
      for (const axis of ['x', 'y', 'z'] as const) expect(Math.abs(placed[0]![axis] - corner[axis])).toBeLessThan(1e-4);

      // A cell's middle, 3.5 m (about 15 pixels) from its nearest vertex: the surface point under the pixel.
      const middle = screenOf({ x: 72.5, y: -62.5, z: 0 }, view);
      const pixel = { x: Math.round(middle.x), y: Math.round(middle.y) };
      await meshPage.mouse.click(pixel.x, pixel.y);
      await meshPage.waitForFunction(() =>
        (window as any).events.some((event: { name: string }) => event.name === 'measurementCreated'),
      );
      const created = ((await meshPage.evaluate(() => (window as any).events)) as Recorded[]).find(
        (event) => event.name === 'measurementCreated',
      )!;
      const { measurement } = created.payload;
      expect(measurement).toMatchObject({ kind: 'distance', unit: 'm', name: 'Distance 1' });
      const [p0, p1] = measurement.points as Vector3[];
      const surface = planePointAt(pixel.x, pixel.y, view, 0);
      for (const axis of ['x', 'y', 'z'] as const) {
        expect(Math.abs(p0![axis] - corner[axis])).toBeLessThan(1e-4);
        expect(Math.abs(p1![axis] - surface[axis])).toBeLessThan(0.01);
      }
      expect(Math.hypot(p1!.x - 72.5, p1!.y + 62.5)).toBeLessThan(0.5);
      expect(measurement.value).toBeCloseTo(Math.hypot(p1!.x - p0!.x, p1!.y - p0!.y, p1!.z - p0!.z), 9);
      expect(Math.abs(measurement.value - Math.hypot(surface.x - corner.x, surface.y - corner.y))).toBeLessThan(0.01);

      // Saved through the API (the token may write): the parent heard the saved one, the platform's value.
      await expect.poll(() => saves.length, { timeout: 10_000 }).toBe(1);
      expect(saves[0]!.status).toBe(201);
      expect(measurement).toEqual(await saves[0]!.body);
      const saved = await org.admin.get(`/v1/twin/${meshSiteId}/measurements/${measurement.id}`);
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({ kind: 'distance', unit: 'm', points: [p0, p1] });
      expect(failures).toEqual([]);
    } finally {
      await meshPage.close();
    }
  }, 120_000);

  it("draws a comparison layer as a heat map of its tiles' _DISTANCE with a legend, and a pick says the point's distance", async () => {
    // A flat 30 × 10 m grid (0.1 m apart) in three strips: distance 0, exactly maxDistance, and
    // beyond it (-1), tiled with _DISTANCE by the tiler and served to the viewer as a comparison
    // layer (the twin's answer given that layer on its way: the comparison routes are built apart).
    const comparison = { comparisonId: 'cmp_test', method: 'c2c', tolerance: 0.05, maxDistance: 0.5 };
    const strip = (x: number) => (x < 10 ? 0 : x < 20 ? comparison.maxDistance : -1);
    const points: DistancePoint[] = [];
    for (let row = 0; row <= 100; row += 1) {
      for (let column = 0; column < 300; column += 1) {
        const point = at(column * 0.1 + 0.05, row * 0.1, 0);
        points.push({ ...point, r: 40, g: 40, b: 255, distance: strip(column * 0.1 + 0.05) });
      }
    }
    const dir = await mkdtemp(path.join(tmpdir(), 'rdp-viewer-tools-distances-'));
    const heatPage = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    try {
      await writeDistancesPly(path.join(dir, 'compared-distances.ply'), points);
      const tiled = await processPointCloud(path.join(dir, 'compared-distances.ply'), path.join(dir, 'tiles'), {
        distance: true,
        tilePoints: 8000,
        threads: 0,
      });
      const [min, max] = [tiled.bounds.min, tiled.bounds.max];
      const layer = {
        bundleId: comparison.comparisonId,
        nodeId: 'node_test',
        kind: 'comparison',
        tilesetUrl: `${viewerServer.origin}/comparison-tiles/tileset.json`,
        boundingBox: { min: { x: min[0], y: min[1], z: min[2] }, max: { x: max[0], y: max[1], z: max[2] } },
        frame: { georeferenced: false, crs: null, reason: null, origin: { x: 0, y: 0, z: 0 } },
        attributes: ['rgb', 'distance'],
        comparison,
      };
      await heatPage.route(`**/v1/twin/${siteId}`, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, json: { ...(await response.json()), layers: [layer] } });
      });
      // The tiles from the viewer's own origin (its CSP's connect-src 'self'), with the token as any tile read.
      const tileRequests: (string | undefined)[] = [];
      await heatPage.route(`${viewerServer.origin}/comparison-tiles/**`, async (route) => {
        tileRequests.push(route.request().headers().authorization);
        const file = path.join(dir, 'tiles', new URL(route.request().url()).pathname.replace('/comparison-tiles/', ''));
        const body = await readFile(file);
        await route.fulfill({ body, contentType: file.endsWith('.json') ? 'application/json' : 'model/gltf-binary' });
      });
      const failures: string[] = [];
      heatPage.on('pageerror', (error) => failures.push(error.message));
      const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=${embedToken}`;
      await heatPage.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
      await heatPage.waitForFunction(
        () => (window as any).events.some((event: { name: string }) => event.name === 'ready'),
        undefined,
        { timeout: 30_000 },
      );
      const heatFrame = heatPage.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
      const view = await heatPage.evaluate((camera) => (window as any).viewer.setCamera(camera), {
        position: at(15, -8, 24),
        target: at(15, 5, 0),
        fov: 60,
      } satisfies Camera);
      await heatFrame.waitForFunction(
        (count) => {
          const shown = (window as any).rdpViewerStatus().layers[0];
          return shown?.settled && shown.pointsLoaded === count;
        },
        points.length,
        { timeout: 30_000 },
      );
      expect(tileRequests.every((authorization) => authorization === `Bearer ${embedToken}`)).toBe(true);
      await heatFrame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const pixels = await canvasPixels(heatFrame);
      /** The painted pixels' colours in a 15-pixel square around a twin point. */
      const paintedNear = (point: Vector3) => {
        const { x, y } = screenOf(point, view);
        const colours: [number, number, number][] = [];
        for (let j = Math.round(y) - 7; j <= Math.round(y) + 7; j += 1) {
          for (let i = Math.round(x) - 7; i <= Math.round(x) + 7; i += 1) {
            const k = (j * 800 + i) * 4;
            const [r, g, b] = [pixels[k]!, pixels[k + 1]!, pixels[k + 2]!];
            if (Math.abs(r - 0x20) + Math.abs(g - 0x24) + Math.abs(b - 0x28) > 12) colours.push([r, g, b]);
          }
        }
        expect(colours.length).toBeGreaterThan(50);
        return colours;
      };
      // Distance 0: the ramp's green; maxDistance: its red; beyond: grey. Never the tiles' own blue.
      for (const [r, g, b] of paintedNear(at(5, 5, 0))) expect(g > r + 60 && g > b + 40, `${r},${g},${b}`).toBe(true);
      for (const [r, g, b] of paintedNear(at(15, 5, 0))) expect(r > g + 100 && r > b + 100, `${r},${g},${b}`).toBe(true);
      for (const [r, g, b] of paintedNear(at(25, 5, 0)))
        expect(Math.max(r, g, b) - Math.min(r, g, b) < 12 && r > 90 && r < 160, `${r},${g},${b}`).toBe(true);

      // The legend: the ramp with 0, the tolerance and maxDistance, in metres.
      const legend = heatFrame.locator('#rdp-distance-legend');
      expect(await legend.isVisible()).toBe(true);
      expect(await legend.locator('.rdp-distance-tick').allTextContents()).toEqual(['0', '0.05', '0.5']);
      expect(await legend.locator('.rdp-distance-title').textContent()).toBe('Distance (C2C), m · tolerance 0.05 m');
      expect(await legend.locator('.rdp-distance-beyond').textContent()).toBe('beyond 0.5 m');

      // A pick reports the point's distance; null beyond maxDistance.
      for (const [x, expected] of [
        [5, 0],
        [15, 0.5],
        [25, null],
      ] as const) {
        const before = (await heatPage.evaluate(() => (window as any).events)).length;
        const { x: px, y: py } = screenOf(at(x, 5, 0), view);
        await heatPage.mouse.click(px, py);
        await heatPage.waitForFunction(
          (count) => (window as any).events.slice(count).some((event: { name: string }) => event.name === 'pointPicked'),
          before,
        );
        const picked = ((await heatPage.evaluate(() => (window as any).events)) as Recorded[])
          .slice(before)
          .find((event) => event.name === 'pointPicked')!.payload;
        expect(picked).toMatchObject({ layerBundleId: comparison.comparisonId, distance: expected });
        expect(Math.abs(picked.position.x - at(x, 5, 0).x)).toBeLessThan(5);
      }
      // Hidden with its layer, shown again with it.
      await heatPage.evaluate((id) => (window as any).viewer.setVisibility({ id }, false), comparison.comparisonId);
      expect(await legend.isVisible()).toBe(false);
      await heatPage.evaluate((id) => (window as any).viewer.setVisibility({ id }, true), comparison.comparisonId);
      expect(await legend.isVisible()).toBe(true);
      expect(failures).toEqual([]);
    } finally {
      await heatPage.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("answers a parent's calls once the twin is read, and rejects them when the session is refused", async () => {
    const refused = await browser.newPage();
    try {
      const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=not-a-token`;
      await refused.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
      await refused.waitForFunction(() => (window as any).viewer !== undefined, undefined, { timeout: 30_000 });
      await expect(refused.evaluate((view) => (window as any).viewer.setCamera(view), camera)).rejects.toThrow(
        /session has expired or was revoked/,
      );
      await expect(refused.evaluate(() => (window as any).viewer.getPointsOfInterest())).rejects.toThrow(
        /session has expired or was revoked/,
      );
    } finally {
      await refused.close();
    }
  });
});
