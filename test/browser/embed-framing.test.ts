import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { codeBlocksOfSection } from '../support/doc-commands.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createLibraryModel } from '../support/library-models.js';
import { createProject } from '../support/planning.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { createSite } from '../support/twins.js';
import { sampleBytes } from '../support/uploads.js';
import { type BuiltViewer, buildViewerForTest, type PageServer, pageServer, parentPage } from '../support/viewer-pages.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

type Recorded = { plainMessages: { origin: string }[]; events: { name: string }[] };
const recorded = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as Recorded;
    return { plainMessages: w.plainMessages, events: w.events.map((event) => ({ name: event.name })) };
  });

/**
 * An embed session end to end, as an integrator meets it: the platform's own viewer page
 * (/viewer/embed/{id}, its scripts from /viewer/assets) framed by a page on an allowed origin,
 * which gets ready and drives the viewer; a page on another origin, which the page's
 * Content-Security-Policy keeps from framing it and which hears nothing; and the session revoked.
 */
describe('embedding in chromium: frame-ancestors, the allowed parent, revocation', () => {
  let built: BuiltViewer;
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let allowed: PageServer;
  let stranger: PageServer;
  let session: { id: string; iframeUrl: string };
  let poiId: string;
  let siteId: string;

  const framing = (iframeUrl: string) => (url: URL) =>
    url.pathname === '/' ? { html: parentPage(t.origin, iframeUrl) } : undefined;

  beforeAll(async () => {
    built = await buildViewerForTest();
    [t, browser] = await Promise.all([startPlatform({ RDP_VIEWER_ASSETS_DIR: built.dir }, { worker: true }), launchBrowser()]);
    org = await createOrg(t);
    siteId = await createSite(org);
    poiId = (await org.admin.post(`/v1/twin/${siteId}/points-of-interest`, { name: 'Valve', position: { x: 1, y: 2, z: 3 } }))
      .body.id;
    let iframeUrl = '';
    allowed = await pageServer(built, (url) => framing(iframeUrl)(url));
    stranger = await pageServer(built, (url) => framing(iframeUrl)(url));
    const created = await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: [allowed.origin] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    session = created.body;
    iframeUrl = session.iframeUrl;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await allowed?.close();
    await stranger?.close();
    await t?.close();
    await built?.remove();
  });

  it('an allowed origin frames the viewer, hears ready (penpal and the plain message) and drives flyTo', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${allowed.origin}/`);
      await page.waitForFunction(() => (window as unknown as { connected?: Promise<boolean> }).connected, null, {
        timeout: 30_000,
      });
      await page.waitForFunction(() => (window as unknown as Recorded).events.some((event) => event.name === 'ready'), null, {
        timeout: 30_000,
      });
      expect((await recorded(page)).plainMessages).toEqual([
        { origin: t.origin, data: expect.objectContaining({ type: 'rdp.ready' }) },
      ]);
      await page.evaluate(
        (id) => (window as unknown as { viewer: { flyTo(id: string): Promise<void> } }).viewer.flyTo(id),
        poiId,
      );
      await page.waitForFunction(
        () => (window as unknown as Recorded).events.some((event) => event.name === 'cameraChanged'),
        null,
        {
          timeout: 10_000,
        },
      );
    } finally {
      await page.close();
    }
  });

  it('another origin cannot frame it (frame-ancestors) and hears nothing', async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|Refused to frame/i.test(message.text())) blocked.push(message.text());
    });
    try {
      await page.goto(`${stranger.origin}/`);
      await expect.poll(() => blocked.length, { timeout: 10_000 }).toBeGreaterThan(0);
      // The viewer never ran in the frame: no message reached the page, nothing connected.
      await page.waitForTimeout(1000);
      expect(await recorded(page)).toEqual({ plainMessages: [], events: [] });
      const viewerFrame = page.frames().find((frame) => frame.url().startsWith(`${t.origin}/viewer/`));
      const ran = await viewerFrame?.evaluate(() => 'rdpViewerStatus' in window).catch(() => false);
      expect(ran ?? false).toBe(false);
    } finally {
      await page.close();
    }
  });

  it("docs/viewer.md's complete embedding page works as an integrator copies it: the twin's points of interest, flyTo", async () => {
    const [example] = codeBlocksOfSection(path.join(ROOT, 'docs/viewer.md'), '## A complete embedding page', 'html');
    expect(example).toContain('https://platform.example/viewer/embed/SESSION_ID#token=SESSION_TOKEN');
    let markup = '';
    const integrator = await pageServer(built, (url) => (url.pathname === '/' ? { html: markup } : undefined));
    try {
      const created = await org.admin.post('/v1/embed-sessions', { twinId: siteId, allowedOrigins: [integrator.origin] });
      expect(created.status).toBe(201);
      // The page's two replacements, as the docs say: the session's address and the platform's.
      markup = (example as string)
        .replace('https://platform.example/viewer/embed/SESSION_ID#token=SESSION_TOKEN', created.body.iframeUrl)
        .replaceAll('https://platform.example', t.origin);
      const page = await browser.newPage();
      try {
        await page.goto(`${integrator.origin}/`);
        const button = page.locator('#pois button', { hasText: 'Valve' });
        await button.waitFor({ timeout: 30_000 });
        const viewerFrame = page.frames().find((frame) => frame.url().startsWith(`${t.origin}/viewer/embed/`));
        type Status = { ready: boolean; camera: unknown };
        const status = () =>
          viewerFrame?.evaluate(() => (window as unknown as { rdpViewerStatus: () => Status }).rdpViewerStatus());
        const before = (await status())?.camera;
        await button.click();
        // The button's flyTo moved the camera to the point of interest.
        await expect
          .poll(async () => JSON.stringify((await status())?.camera), { timeout: 10_000 })
          .not.toBe(JSON.stringify(before));
        expect(await page.textContent('#selected')).toBe('');
      } finally {
        await page.close();
      }
    } finally {
      await integrator.close();
    }
  });

  it("a planning project's session shows its bundle's point cloud and the default layout's placed model", async () => {
    const bytes = await sampleBytes((file) => writeLas(file, 2000));
    const { bundleId } = await processedPointCloud(org, siteId, { name: 'plan.las', bytes });
    const project = await createProject(org, bundleId);
    const model = await createLibraryModel(org, { name: 'Skid' });
    const placed = await org.admin.post(`/v1/twin/${project.defaultLayout.id}/model-assets`, {
      libraryModelId: model.id,
      name: 'Skid',
      position: { x: 0, y: 0, z: 0 },
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const created = await org.admin.post('/v1/embed-sessions', { projectId: project.id, allowedOrigins: [allowed.origin] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const page = await browser.newPage();
    try {
      // The viewer's own page, opened on its own: its reads, not the framing, are what is tested here.
      await page.goto(created.body.iframeUrl);
      type Status = {
        ready: boolean;
        layers: { tilesLoaded: number; errors: string[]; settled: boolean }[];
        models: { placed: number; boxes: number };
      };
      const status = () => page.evaluate(() => (window as unknown as { rdpViewerStatus: () => Status }).rdpViewerStatus());
      await expect.poll(async () => (await status()).ready, { timeout: 30_000 }).toBe(true);
      await expect.poll(async () => (await status()).layers[0]?.settled, { timeout: 30_000 }).toBe(true);
      const shown = await status();
      expect(shown.layers).toHaveLength(1);
      expect(shown.layers[0]?.tilesLoaded).toBeGreaterThan(0);
      expect(shown.layers[0]?.errors).toEqual([]);
      // A STEP model has no preview (docs/asset-library.md): the one placed model a box, and the page says why.
      expect(shown.models).toEqual({ placed: 1, boxes: 1 });
      expect(await page.locator('[data-key="models"]').textContent()).toBe(
        '1 placed model(s) shown as boxes: their library models have no preview.',
      );
    } finally {
      await page.close();
    }
  });

  it('once revoked, the framed page says so and the viewer does not start', async () => {
    expect((await org.admin.delete(`/v1/embed-sessions/${session.id}`)).status).toBe(204);
    const page = await browser.newPage();
    try {
      const answered = page.waitForResponse((response) => response.url().includes(`/viewer/embed/${session.id}`));
      await page.goto(`${allowed.origin}/`);
      expect((await answered).status()).toBe(410);
      const viewerFrame = page.frames().find((frame) => frame.url().startsWith(`${t.origin}/viewer/`));
      await expect.poll(() => viewerFrame?.textContent('body'), { timeout: 10_000 }).toContain('revoked');
      expect(await viewerFrame?.evaluate(() => 'rdpViewerStatus' in window)).toBe(false);
      expect((await recorded(page)).plainMessages).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
