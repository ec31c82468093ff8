import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { createOrg, createTree, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { processedPointCloud } from '../support/processed-point-cloud.js';
import { sampleBytes } from '../support/uploads.js';

/** More than the tiler's 50,000 points a tile: the viewer has to refine to reach them all. */
const POINTS = 120_000;

/** The only files the page server hands out: the two libraries' ES modules, no bundler. */
const SERVED = ['three/build/', 'three/examples/jsm/', '3d-tiles-renderer/build/'];
const NODE_MODULES = path.resolve('node_modules');

/**
 * A page that loads a tileset with 3d-tiles-renderer, the bearer token in its fetch options, at a
 * view that asks for every tile (errorTarget 0, the camera framing the whole cloud), and reports
 * the points of the tiles loaded and of those shown once loading has settled.
 */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>tileset</title>
<script type="importmap">${JSON.stringify({
  imports: {
    three: '/node_modules/three/build/three.module.js',
    'three/addons/': '/node_modules/three/examples/jsm/',
    '3d-tiles-renderer': '/node_modules/3d-tiles-renderer/build/index.three.js',
  },
})}</script>
<script type="module">
import { PerspectiveCamera, Sphere } from 'three';
import { TilesRenderer } from '3d-tiles-renderer';

const pointsOf = (object) => {
  let points = 0;
  object.traverse((child) => { if (child.isPoints) points += child.geometry.getAttribute('position').count; });
  return points;
};

window.loadEveryPoint = async (url, token) => {
  const tiles = new TilesRenderer(url);
  tiles.fetchOptions = { headers: { Authorization: 'Bearer ' + token } };
  tiles.errorTarget = 0;
  const errors = [];
  let loaded = 0;
  let models = 0;
  tiles.addEventListener('load-model', ({ scene }) => { loaded += pointsOf(scene); models += 1; });
  tiles.addEventListener('dispose-model', ({ scene }) => { loaded -= pointsOf(scene); models -= 1; });
  tiles.addEventListener('load-error', ({ error, url }) => errors.push(String(url) + ': ' + String(error)));
  const camera = new PerspectiveCamera(60, 1, 0.01, 1e7);
  tiles.setCamera(camera);
  tiles.setResolution(camera, 1024, 1024);
  const sphere = new Sphere();
  const frame = () => new Promise((resolve) => setTimeout(resolve, 10));
  let placed = false;
  let settled = 0;
  for (let step = 0; step < 2000 && errors.length === 0; step += 1) {
    if (!placed && tiles.getBoundingSphere(sphere)) {
      camera.position.copy(sphere.center).add({ x: 0, y: 0, z: sphere.radius * 2.5 });
      camera.lookAt(sphere.center);
      camera.updateMatrixWorld();
      placed = true;
    }
    tiles.group.updateMatrixWorld();
    tiles.update();
    const { queued, downloading, parsing } = tiles.stats;
    settled = placed && models > 0 && queued + downloading + parsing === 0 ? settled + 1 : 0;
    if (settled > 5) break;
    await frame();
  }
  return { loaded, shown: pointsOf(tiles.group), models, errors, settled };
};
window.viewerReady = true;
</script></head><body></body></html>`;

/** The page and the allowed library files, from the test's own server (another origin than the API). */
function pageServer(): http.Server {
  return http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://page.invalid');
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    }
    const relative = decodeURIComponent(url.pathname).replace(/^\/node_modules\//, '');
    const file = path.join(NODE_MODULES, relative);
    const allowed = SERVED.some((root) => file.startsWith(path.join(NODE_MODULES, root))) && file.endsWith('.js');
    const body = allowed ? await readFile(file).catch(() => undefined) : undefined;
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(body);
  });
}

describe('a processed point cloud in a 3D Tiles viewer (3d-tiles-renderer in chromium)', () => {
  let server: http.Server;
  let pageOrigin: string;
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let tilesetUrl: string;

  beforeAll(async () => {
    server = pageServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The page calls the API from its own origin, as a web viewer does: CORS for that origin.
    const [platform, launched] = await Promise.all([
      startPlatform({ RDP_CORS_ORIGINS: pageOrigin }, { worker: true }),
      launchBrowser(),
    ]);
    t = platform;
    browser = launched;
    org = await createOrg(t, { storageQuota: 50 * 1024 * 1024 });
    const { siteId } = await createTree(org);
    const las = await sampleBytes((file) => writeLas(file, POINTS));
    const { bundle } = await processedPointCloud(org, siteId, { name: 'scan.las', bytes: las });
    tilesetUrl = bundle.processings[0].tilesetUrl;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('loads every point of the input from the API with the bearer token, and nothing without it', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(pageOrigin);
    await page.waitForFunction(() => (window as unknown as { viewerReady?: boolean }).viewerReady === true);
    type Loaded = { loaded: number; shown: number; models: number; errors: string[]; settled: number };
    const load = (token: string) =>
      page.evaluate(
        ([url, bearer]) =>
          (window as unknown as { loadEveryPoint(url: string, token: string): Promise<Loaded> }).loadEveryPoint(
            url as string,
            bearer as string,
          ),
        [tilesetUrl, token],
      );
    const result = await load(org.admin.token as string);
    expect(failures).toEqual([]);
    expect(result.errors).toEqual([]);
    expect(result.models).toBeGreaterThan(1);
    expect(result.loaded).toBe(POINTS);
    expect(result.shown).toBe(POINTS);

    const refused = await load('not-a-token');
    expect(refused.errors.length).toBeGreaterThan(0);
    expect(refused.loaded).toBe(0);
  }, 30_000);
});
