import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { createLibraryModel } from '../support/library-models.js';
import { writeTexturedObj } from '../support/mesh-samples.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedMeshSession } from '../support/processed-mesh.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { sampleBytes } from '../support/uploads.js';
import {
  type BuiltViewer,
  buildViewerForTest,
  type PageServer,
  pageServer,
  parentPage,
  viewerRoute,
} from '../support/viewer-pages.js';

/** More than one tile's 50,000 points: the viewer has to refine to show them all. */
const POINTS = 120_000;

type LayerStatus = { tilesLoaded: number; pointsLoaded: number; trianglesLoaded: number; errors: string[]; settled: boolean };
type ViewerStatus = {
  ready: boolean;
  refused: boolean;
  frames: number;
  layers: LayerStatus[];
  models: { placed: number; boxes: number };
};
type Vector3 = { x: number; y: number; z: number };

const statusOf = (frame: Page | import('playwright-core').Frame) =>
  frame.evaluate(() => (window as unknown as { rdpViewerStatus?: () => ViewerStatus }).rdpViewerStatus?.() ?? null);

/** Waits until `count` more frames are drawn: the last tiles loaded then show on the canvas. */
async function framesDrawn(page: Page, count: number): Promise<void> {
  const from = (await statusOf(page))!.frames;
  await page.waitForFunction((target) => ((window as any).rdpViewerStatus?.().frames ?? 0) >= target, from + count, {
    timeout: 10_000,
  });
}

/** The canvas's pixels that are not the background (#202428), as [r, g, b]. */
async function paintedColours(frame: Page | import('playwright-core').Frame): Promise<[number, number, number][]> {
  const dataUrl = await frame.evaluate(() =>
    (document.querySelector('#rdp-viewer canvas') as HTMLCanvasElement).toDataURL('image/png'),
  );
  const png = PNG.sync.read(Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64'));
  const painted: [number, number, number][] = [];
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
    if (Math.abs(r - 0x20) + Math.abs(g - 0x24) + Math.abs(b - 0x28) > 12) painted.push([r, g, b]);
  }
  return painted;
}

async function paintedPixels(frame: Page | import('playwright-core').Frame): Promise<number> {
  return (await paintedColours(frame)).length;
}

describe('the 3D viewer in chromium: a processed point cloud, a textured mesh layer, labels, the postMessage API, a refused session', () => {
  let built: BuiltViewer;
  let viewerServer: PageServer;
  let parentServer: PageServer;
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let siteId: string;
  let poiId: string;
  let zoneId: string;
  let token: string;
  let allowedOrigins: string[] = [];
  let frameAncestors: string[] = [];
  let reader: Promise<import('../support/fixtures.js').ApiClient> | undefined;
  /** A caller who reads the library: to wait for the model's preview. */
  const libraryReader = () => {
    reader ??= org
      .serviceClient({ scopes: 'read:basic read:assetlibrary', roleName: 'Organization Administrator' })
      .then(({ client }) => client);
    return reader;
  };

  beforeAll(async () => {
    built = await buildViewerForTest();
    // The viewer's page on one origin, the integrator's on another; the API on a third, with CORS for the viewer's.
    const apiBase = { value: '' };
    let apiOrigin = '';
    viewerServer = await pageServer(built, (url) =>
      viewerRoute(
        apiBase.value,
        apiOrigin,
        () => allowedOrigins,
        () => frameAncestors,
      )(url),
    );
    parentServer = await pageServer(built, (url) => {
      const iframeUrl = url.searchParams.get('iframe');
      return url.pathname === '/' && iframeUrl ? { html: parentPage(viewerServer.origin, iframeUrl) } : undefined;
    });
    allowedOrigins = [parentServer.origin];
    frameAncestors = [parentServer.origin];
    const [platform, launched] = await Promise.all([
      startPlatform({ RDP_CORS_ORIGINS: viewerServer.origin }, { worker: true }),
      launchBrowser(),
    ]);
    t = platform;
    browser = launched;
    apiBase.value = `${t.regionUrl('eu')}/v1`;
    apiOrigin = t.origin;
    org = await createOrg(t, { storageQuota: 50 * 1024 * 1024 });
    token = org.admin.token as string;
    siteId = (await createTree(org)).siteId;
    const las = await sampleBytes((file) => writeLas(file, POINTS));
    const { bundleId } = await processedPointCloud(org, siteId, { name: 'scan.las', bytes: las });
    const layer = await org.admin.request('PUT', `/v1/twin/${siteId}/layers/${bundleId}`);
    expect(layer.status).toBe(201);
    const { min, max } = layer.body.boundingBox as { min: Vector3; max: Vector3 };
    const center = { x: (min.x + max.x) / 2, y: (min.y + max.y) / 2, z: (min.z + max.z) / 2 };
    const size = { x: (max.x - min.x) / 4, y: (max.y - min.y) / 4, z: (max.z - min.z) / 4 };
    const zone = await org.admin.post(`/v1/twin/${siteId}/zones`, {
      name: 'Pump hall',
      volume: { boxes: [{ center: { ...center, x: min.x + size.x }, size, rotation: { x: 0, y: 0, z: 0, w: 1 } }] },
    });
    expect(zone.status).toBe(201);
    zoneId = zone.body.id;
    const poi = await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, { name: 'Pump P-101', position: center });
    expect(poi.status).toBe(201);
    poiId = poi.body.id;
    // A library model (an OBJ the platform's worker previews) placed beside the zone.
    const model = await createLibraryModel(org, { status: 'processing' });
    for (let waited = 0; waited < 30_000; waited += 100) {
      const reader = await libraryReader();
      if ((await reader.get(`/v1/asset-library/models/${model.id}`)).body.status === 'ready') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const placed = await org.admin.post(`/v1/twin/${siteId}/model-assets`, {
      libraryModelId: model.id,
      name: 'Pump model',
      position: { ...center, x: max.x - size.x },
      scale: { x: 2, y: 2, z: 2 },
    });
    expect(placed.status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await viewerServer?.close();
    await parentServer?.close();
    await built?.remove();
  });

  it('renders every tile of the processed cloud under its Content-Security-Policy, labels its point of interest, and picks a point', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    // Every answer an error but the favicon's (the test's page server has none); the library's
    // routes and the model's preview (read through the twin) are recorded apart.
    const libraryReads: number[] = [];
    const previewReads: number[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/asset-library/')) libraryReads.push(response.status());
      if (/\/model-assets\/[^/]+\/preview$/.test(response.url())) previewReads.push(response.status());
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) {
        failures.push(`${response.status()} ${response.url()}`);
      }
    });
    await page.goto(`${viewerServer.origin}/viewer/${siteId}#token=${token}`);
    await page.waitForFunction(
      () => {
        const status = (window as unknown as { rdpViewerStatus?: () => ViewerStatus }).rdpViewerStatus?.();
        const layer = status?.layers[0];
        return Boolean(status?.ready && layer?.settled && layer.tilesLoaded > 1 && status.frames > 2);
      },
      undefined,
      { timeout: 30_000 },
    );
    await framesDrawn(page, 3);
    const status = (await statusOf(page))!;
    expect(failures).toEqual([]);
    expect(status.layers[0]!.errors).toEqual([]);
    expect(status.layers[0]!.pointsLoaded).toBe(POINTS);
    expect(await paintedPixels(page)).toBeGreaterThan(2_000);
    await page.locator('.rdp-poi', { hasText: 'Pump P-101' }).waitFor({ state: 'visible' });
    // The placed model is drawn from its preview, read through the twin: the library is not asked.
    expect(status.models).toEqual({ placed: 1, boxes: 0 });
    expect(previewReads).toEqual([200]);
    expect(libraryReads).toEqual([]);
    expect(await page.locator('[data-key="models"]').count()).toBe(0);

    // A click on the cloud's middle (the camera looks at it) picks a point of it, in the twin's frame.
    await page.mouse.click(400, 300);
    const picked = await page.waitForFunction(
      () =>
        (window as unknown as { rdpViewerStatus: () => { lastPick: { position: Vector3 } | null } }).rdpViewerStatus().lastPick,
    );
    const { position } = (await picked.jsonValue())!;
    const { body: twin } = await org.admin.get(`/v1/twin/${siteId}`);
    const { min, max } = twin.layers[0].boundingBox as { min: Vector3; max: Vector3 };
    for (const axis of ['x', 'y', 'z'] as const) {
      expect(position[axis]).toBeGreaterThanOrEqual(min[axis] - 0.01);
      expect(position[axis]).toBeLessThanOrEqual(max[axis] + 0.01);
    }
    await page.close();
  }, 60_000);

  it('draws a processed textured mesh layer with its texture, and a click on it picks a point of its surface', async () => {
    // A site of its own, so the camera frames the mesh alone: a textured OBJ terrain processed as one session.
    const meshSiteId = (await createTree(org)).siteId;
    const dir = await mkdtemp(path.join(tmpdir(), 'rdp-viewer-mesh-'));
    let bundleId: string;
    try {
      const files = await writeTexturedObj(dir, 200, 100);
      const processed = await processedMeshSession(org, meshSiteId, 'Textured terrain', files);
      expect(processed.bundle.state, JSON.stringify(processed.bundle.processings)).toBe('ready');
      bundleId = processed.bundleId;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const layer = await org.admin.request('PUT', `/v1/twin/${meshSiteId}/layers/${bundleId}`);
    expect(layer.status).toBe(201);
    expect(layer.body.kind).toBe('mesh');

    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
        failures.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${viewerServer.origin}/viewer/${meshSiteId}#token=${token}`);
    await page.waitForFunction(
      () => {
        const status = (window as unknown as { rdpViewerStatus?: () => ViewerStatus }).rdpViewerStatus?.();
        const layer = status?.layers[0];
        return Boolean(status?.ready && layer?.settled && layer.trianglesLoaded > 0 && status.frames > 2);
      },
      undefined,
      { timeout: 30_000 },
    );
    await framesDrawn(page, 3);
    const status = (await statusOf(page))!;
    expect(failures).toEqual([]);
    expect(status.layers[0]!.errors).toEqual([]);
    expect(status.layers[0]!.pointsLoaded).toBe(0);

    // The texture (test/support/mesh-samples.ts, texturePng) has red growing with u, green with v
    // and blue 120 or 160: white lights scale a texel's channels alike, so their order shows
    // through. Its corners appear: red above blue above green, green above blue above red, and
    // blue above both. An untextured mesh (the MTL's white Kd) would be grey.
    const painted = await paintedColours(page);
    expect(painted.length).toBeGreaterThan(20_000);
    const count = (test: (r: number, g: number, b: number) => boolean) => painted.filter(([r, g, b]) => test(r, g, b)).length;
    const reddish = count((r, g, b) => r > b + 30 && b > g + 10);
    const greenish = count((r, g, b) => g > b + 30 && b > r + 10);
    const bluish = count((r, g, b) => b > r + 30 && b > g + 30);
    const grey = count((r, g, b) => Math.max(r, g, b) - Math.min(r, g, b) < 8);
    expect({ reddish: reddish > 500, greenish: greenish > 500, bluish: bluish > 500 }).toEqual({
      reddish: true,
      greenish: true,
      bluish: true,
    });
    expect(grey).toBeLessThan(painted.length / 4);

    // A click in the middle of the frame (the camera looks at the mesh) picks a point of its surface.
    await page.mouse.click(400, 300);
    const picked = await page.waitForFunction(
      () =>
        (
          window as unknown as { rdpViewerStatus: () => { lastPick: { position: Vector3; layerBundleId: string } | null } }
        ).rdpViewerStatus().lastPick,
    );
    const pick = (await picked.jsonValue())!;
    expect(pick.layerBundleId).toBe(bundleId);
    const { min, max } = layer.body.boundingBox as { min: Vector3; max: Vector3 };
    // The terrain spans 100 m by 100 m with hills of a few metres: a box with a volume.
    expect(Math.min(max.x - min.x, max.y - min.y, max.z - min.z)).toBeGreaterThan(4);
    for (const axis of ['x', 'y', 'z'] as const) {
      expect(pick.position[axis]).toBeGreaterThanOrEqual(min[axis] - 0.01);
      expect(pick.position[axis]).toBeLessThanOrEqual(max[axis] + 0.01);
    }
    await page.close();
  }, 120_000);

  it("an embed session's token shows the placed model from its preview GLB, read through the twin (no library scope)", async () => {
    const session = await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: [parentServer.origin] });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    const previewReads: number[] = [];
    page.on('response', (response) => {
      if (/\/model-assets\/[^/]+\/preview$/.test(response.url())) previewReads.push(response.status());
      else if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) {
        failures.push(`${response.status()} ${response.url()}`);
      }
    });
    await page.goto(`${viewerServer.origin}/viewer/${siteId}#token=${session.body.token}`);
    await page.waitForFunction(() => (window as any).rdpViewerStatus?.().ready === true, undefined, { timeout: 30_000 });
    expect(failures).toEqual([]);
    expect((await statusOf(page))!.models).toEqual({ placed: 1, boxes: 0 });
    expect(previewReads).toEqual([200]);
    expect(await page.locator('[data-key="models"]').count()).toBe(0);
    await page.close();
  }, 30_000);

  it('talks to a parent page of an allowed origin: ready (penpal and the plain message), poiSelected on a label click, flyTo moves the camera', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=${token}`;
    await page.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
    await page.waitForFunction(
      () => (window as unknown as { events: { name: string }[] }).events.some((event) => event.name === 'ready'),
      undefined,
      {
        timeout: 30_000,
      },
    );
    type Recorded = { events: { name: string; payload: any }[]; plainMessages: { origin: string; data: unknown }[] };
    const recorded = () =>
      page.evaluate(() => ({ events: (window as any).events, plainMessages: (window as any).plainMessages }) as Recorded);
    const ready = (await recorded()).events.find((event) => event.name === 'ready')!;
    expect(ready.payload).toMatchObject({ version: built.version, siteId });
    await page.waitForFunction(() => (window as any).plainMessages.length > 0);
    expect((await recorded()).plainMessages).toEqual([
      { origin: viewerServer.origin, data: { type: 'rdp.ready', version: built.version } },
    ]);

    const frame = page.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
    const pois = await page.evaluate(() => (window as any).viewer.getPointsOfInterest());
    expect(pois.map((poi: { id: string }) => poi.id)).toEqual([poiId]);
    expect((await page.evaluate(() => (window as any).viewer.getZones())).map((zone: { id: string }) => zone.id)).toEqual([
      zoneId,
    ]);

    await frame.locator('.rdp-poi', { hasText: 'Pump P-101' }).click();
    await page.waitForFunction(() => (window as any).events.some((event: { name: string }) => event.name === 'poiSelected'));
    const selected = (await recorded()).events.find((event) => event.name === 'poiSelected')!;
    expect(selected.payload).toMatchObject({ id: poiId, name: 'Pump P-101' });

    const before = await page.evaluate(() => (window as any).viewer.getCamera());
    const eventsBefore = (await recorded()).events.filter((event) => event.name === 'cameraChanged').length;
    const landed = await page.evaluate((id) => (window as any).viewer.flyTo(id, { durationMs: 300 }), zoneId);
    const after = await page.evaluate(() => (window as any).viewer.getCamera());
    expect(after).toEqual(landed);
    expect(
      Math.hypot(after.target.x - before.target.x, after.target.y - before.target.y, after.target.z - before.target.z),
    ).toBeGreaterThan(0.5);
    await page.waitForFunction(
      (count) => (window as any).events.filter((event: { name: string }) => event.name === 'cameraChanged').length > count,
      eventsBefore,
    );
    const changed = (await recorded()).events.filter((event) => event.name === 'cameraChanged').at(-1)!;
    expect(changed.payload.target.x).toBeCloseTo(after.target.x, 6);

    // A missing id is the method's error, not a silent success.
    await expect(page.evaluate(() => (window as any).viewer.flyTo('no-such-object'))).rejects.toThrow(/no-such-object/);

    // The camera now looks at the zone: with the layers hidden, a click in the middle of the frame selects it.
    expect(await page.evaluate(() => (window as any).viewer.setVisibility('layers', false))).toBe(1);
    await page.mouse.click(400, 300);
    await page.waitForFunction(() => (window as any).events.some((event: { name: string }) => event.name === 'zoneSelected'));
    const zoneSelected = (await recorded()).events.find((event) => event.name === 'zoneSelected')!;
    expect(zoneSelected.payload).toEqual({ id: zoneId, name: 'Pump hall' });
    expect(await page.evaluate(() => (window as any).viewer.setVisibility('zones', false))).toBe(1);
    await page.close();
  }, 60_000);

  it('sends nothing to a parent whose origin is not allowed, though it frames the viewer', async () => {
    // The CSP lets this parent frame the page; the viewer's configuration allows another origin.
    allowedOrigins = ['https://elsewhere.example'];
    try {
      const page = await browser.newPage();
      const iframeUrl = `${viewerServer.origin}/viewer/${siteId}#token=${token}`;
      await page.goto(`${parentServer.origin}/?iframe=${encodeURIComponent(iframeUrl)}`);
      const frame = page.frames().find((candidate) => candidate.url().startsWith(viewerServer.origin))!;
      await frame.waitForFunction(() => (window as any).rdpViewerStatus?.().ready === true, undefined, { timeout: 30_000 });
      await page.waitForTimeout(500);
      expect(await page.evaluate(() => ({ events: (window as any).events, plain: (window as any).plainMessages }))).toEqual({
        events: [],
        plain: [],
      });
      await page.close();
    } finally {
      allowedOrigins = [parentServer.origin];
    }
  }, 30_000);

  it('says the session has expired or was revoked when the token is refused, and loads nothing more', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(t.origin)) requests.push(request.url());
    });
    await page.goto(`${viewerServer.origin}/viewer/${siteId}#token=not-a-token`);
    expect(await page.locator('#rdp-session-refused').textContent()).toMatch(/session has expired or was revoked/);
    await page.waitForTimeout(500);
    expect(requests).toEqual([`${t.regionUrl('eu')}/v1/twin/${siteId}`]);

    // Refused in the middle: the twin's reads pass, then the tiles are refused (a session revoked meanwhile).
    const second = await browser.newPage();
    const later: string[] = [];
    second.on('request', (request) => {
      if (request.url().startsWith(t.origin)) later.push(request.url());
    });
    await second.route(`${t.origin}/**/tiles/**`, (route) =>
      route.fulfill({ status: 401, headers: { 'access-control-allow-origin': viewerServer.origin }, body: '' }),
    );
    await second.goto(`${viewerServer.origin}/viewer/${siteId}#token=${token}`);
    expect(await second.locator('#rdp-session-refused').textContent()).toMatch(/session has expired or was revoked/);
    const refusedAt = later.length;
    await second.waitForTimeout(500);
    expect(later.length).toBe(refusedAt);
    expect(later.filter((url) => url.includes('/tiles/'))).toHaveLength(1);
    expect((await statusOf(second))!.refused).toBe(true);
    await page.close();
    await second.close();
  }, 30_000);
});
