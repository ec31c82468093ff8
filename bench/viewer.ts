import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { buildViewer } from '../scripts/build-viewer.mjs';
import { loadConfig } from '../src/config/config.js';
import { buildApp } from '../src/http/app.js';
import { viewerContentSecurityPolicy, viewerPage } from '../src/http/viewer/viewer-page.js';
import { startWorker } from '../src/jobs/start-worker.js';
import { openPlatform } from '../src/platform.js';
import { launchBrowser } from '../test/support/browser.js';
import { writeLas } from '../test/support/point-cloud-samples.js';
import { freePort } from '../test/support/ports.js';
import { fetchToken, seedOrganization } from './support/bench-store.js';
import { log, median, ms, quick, runMain, type SummaryRow, times } from './support/report.js';
import { createStoreUnderTest } from './support/stores.js';

/**
 * Time to the first rendered frame of a twin of 1,000,000 points (200,000 quick) in headless
 * chromium: the platform's viewer page (its bundled script, the twin read from the API, tiles
 * with the bearer token) against a bare page bundled the same way with three.js and
 * 3d-tiles-renderer loading the same tileset's files from a static file server, same
 * refinement, same window. "First frame" is the first frame drawn with a tile in it, taken by
 * each page as performance.now() (from its navigation). Each round opens both in fresh browser
 * contexts (no shared cache), the order swapped every round; the median of the rounds' ratios.
 * Issue 13 asks for 1.25x at most; the exit status never depends on it.
 */
const POINTS = quick ? 200_000 : 1_000_000;
const ROUNDS = quick ? 3 : 11;
const TARGET = 1.25;
const WIDTH = 1024;
const HEIGHT = 768;
/** Issue 24: frames with eye-dome lighting and a clip box on take at most 1.25x those without. */
const FRAME_TARGET = 1.25;
const FRAME_ROUNDS = quick ? 3 : 7;
const FRAME_WINDOW_MS = quick ? 1_500 : 3_000;

/** The bare page's script: what any three.js page needs to show the tileset, nothing of ours. */
const BARE_ENTRY = `
import { PerspectiveCamera, Scene, Sphere, WebGLRenderer, Color } from 'three';
import { TilesRenderer } from '3d-tiles-renderer/three';
const renderer = new WebGLRenderer({ antialias: false });
renderer.setSize(innerWidth, innerHeight);
document.body.appendChild(renderer.domElement);
const scene = new Scene();
scene.background = new Color(0x202428);
const camera = new PerspectiveCamera(60, innerWidth / innerHeight, 0.05, 1e6);
camera.up.set(0, 0, 1);
const tiles = new TilesRenderer(new URL('tileset.json', location.href).href);
tiles.errorTarget = 4;
tiles.setCamera(camera);
tiles.setResolutionFromRenderer(camera, renderer);
scene.add(tiles.group);
const sphere = new Sphere();
let placed = false;
window.firstContentFrameAt = null;
const frame = () => {
  if (!placed && tiles.getBoundingSphere(sphere)) {
    camera.position.copy(sphere.center).add({ x: sphere.radius * 1.2, y: -sphere.radius * 1.2, z: sphere.radius });
    camera.lookAt(sphere.center);
    placed = true;
  }
  tiles.update();
  renderer.render(scene, camera);
  if (window.firstContentFrameAt === null && tiles.visibleTiles.size > 0) window.firstContentFrameAt = performance.now();
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
`;

type Answer = { type: string; body: Buffer | string; headers?: Record<string, string> } | undefined;

/** A server on 127.0.0.1 answering `handler`; what it does not answer goes to `proxyTo` as it came (or is 404). */
function serve(handler: (url: URL) => Promise<Answer>, proxyTo?: () => string) {
  const server = http.createServer(async (request, response) => {
    const target = proxyTo?.();
    if (target && !request.url?.startsWith('/viewer/')) {
      const forwarded = http.request(
        `${target}${request.url}`,
        { method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.on('error', () => response.writeHead(502).end());
      request.pipe(forwarded);
      return;
    }
    // Joined, not resolved: a path such as //tiles/r.glb is no host.
    const answer = await handler(new URL(`http://bench.invalid${request.url ?? '/'}`)).catch(() => undefined);
    if (!answer) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': answer.type, ...answer.headers }).end(answer.body);
  });
  return new Promise<{ origin: string; close: () => Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

/**
 * The viewer's mean frame time (the frames it draws in FRAME_WINDOW_MS, window.rdpViewerStatus),
 * with eye-dome lighting and a clip box (about the middle half of the cloud) on, off, and eye-dome
 * lighting alone (the clip box draws fewer points, which hides the pass's cost) in turn, in one
 * page framed by a parent that drives it through rdp-embed.js: same tiles, same camera. Answers
 * each round's ratios to off and the median times. requestAnimationFrame caps a frame at the
 * display's interval: a ratio near 1 at about 16.7 ms means both are under it.
 */
async function frameTimes(browser: Browser, parentUrl: string, viewerOrigin: string) {
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT } });
  try {
    const page = await context.newPage();
    await page.goto(parentUrl);
    await page.waitForFunction(() => (window as any).viewer !== undefined, undefined, { timeout: 120_000 });
    const frame = page.frames().find((candidate) => candidate.url().startsWith(viewerOrigin))!;
    await frame.waitForFunction(() => (window as any).rdpViewerStatus().layers[0]?.settled === true, undefined, {
      timeout: 120_000,
    });
    const box = await page.evaluate(async () => {
      const viewer = (window as any).viewer;
      const camera = await viewer.getCamera();
      return { center: camera.target, size: { x: 50, y: 30, z: 20 }, rotation: { x: 0, y: 0, z: 0, w: 1 } };
    });
    const meanFrame = async () => {
      const before = await frame.evaluate(() => (window as any).rdpViewerStatus().frames as number);
      const started = Date.now();
      await page.waitForTimeout(FRAME_WINDOW_MS);
      const after = await frame.evaluate(() => (window as any).rdpViewerStatus().frames as number);
      return (Date.now() - started) / Math.max(1, after - before);
    };
    type State = 'off' | 'on' | 'eyeDomeOnly';
    const set = (state: State) =>
      page.evaluate(
        ([eyeDome, clip]) =>
          Promise.all([(window as any).viewer.setEyeDomeLighting(eyeDome), (window as any).viewer.setClipBox(clip)]),
        [state !== 'off', state === 'on' ? box : null] as const,
      );
    const ratios: number[] = [];
    const eyeDomeRatios: number[] = [];
    const measured: Record<State, number[]> = { off: [], on: [], eyeDomeOnly: [] };
    for (let round = 0; round < FRAME_ROUNDS; round += 1) {
      const order: State[] = round % 2 === 0 ? ['off', 'on', 'eyeDomeOnly'] : ['eyeDomeOnly', 'on', 'off'];
      for (const state of order) {
        await set(state);
        await page.waitForTimeout(200);
        measured[state].push(await meanFrame());
      }
      const off = measured.off.at(-1) as number;
      ratios.push((measured.on.at(-1) as number) / off);
      eyeDomeRatios.push((measured.eyeDomeOnly.at(-1) as number) / off);
    }
    return {
      ratios,
      eyeDomeRatios,
      on: median(measured.on),
      off: median(measured.off),
      eyeDomeOnly: median(measured.eyeDomeOnly),
    };
  } finally {
    await context.close();
  }
}

async function timeToFirstFrame(browser: Browser, url: string, read: () => number | false): Promise<number> {
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT } });
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
        problems.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(url);
    const handle = await page
      .waitForFunction(read, undefined, { timeout: quick ? 20_000 : 120_000, polling: 20 })
      .catch((error) => {
        throw new Error(`${url}: no frame with a tile (${problems.join('; ') || String(error)})`);
      });
    return (await handle.jsonValue()) as number;
  } finally {
    await context.close();
  }
}

export async function runViewer(): Promise<SummaryRow[]> {
  log(
    `viewer: time to the first rendered frame of a ${POINTS.toLocaleString('en')}-point twin, viewer page vs bare three.js page`,
  );
  const store = await createStoreUnderTest('viewer');
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'rdp-bench-viewer-'));
  const built = await buildViewer(path.join(scratch, 'viewer'));
  await build({
    stdin: { contents: BARE_ENTRY, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    outfile: path.join(scratch, 'bare.js'),
    logLevel: 'warning',
  });
  let viewerOrigin = '';
  let apiBase = '';
  let apiOrigin = '';
  let siteId = '';
  let tilesFolder = '';
  let parentOrigin = '';
  let framedUrl = '';
  // The viewer's page on the API's own address, as the platform serves it: the server answers the
  // page and its scripts and passes everything else to the API (its public address), so no request
  // of the viewer is cross-origin (no CORS preflight), as in production.
  const viewerServer = await serve(
    async (url) => {
      if (url.pathname.startsWith('/viewer/assets/')) {
        return { type: 'text/javascript', body: await fs.readFile(path.join(built.outdir, path.basename(url.pathname))) };
      }
      // The bare page's server also serves the parent of the frame-time measure: the one origin allowed.
      const parents = parentOrigin ? [parentOrigin] : [];
      const config = { apiBase, target: { type: 'twin' as const, id: siteId }, ctx: siteId, allowedOrigins: parents };
      return {
        type: 'text/html; charset=utf-8',
        body: viewerPage('Twin', config).toString(),
        headers: { 'content-security-policy': viewerContentSecurityPolicy(parents) },
      };
    },
    () => apiOrigin,
  );
  viewerOrigin = viewerServer.origin;
  const bareServer = await serve(async (url) => {
    if (url.pathname === '/') {
      return {
        type: 'text/html; charset=utf-8',
        body: '<!doctype html><body style="margin:0"><script src="/bare.js"></script></body>',
      };
    }
    if (url.pathname === '/parent') {
      return {
        type: 'text/html; charset=utf-8',
        body: `<!doctype html><body style="margin:0"><script src="${viewerOrigin}/viewer/assets/rdp-embed.js"></script>
<iframe id="twin" src="${framedUrl}" style="width:${WIDTH}px;height:${HEIGHT}px;border:0"></iframe>
<script>RdpViewer.connect(document.getElementById('twin')).then((viewer) => { window.viewer = viewer; });</script></body>`,
      };
    }
    if (url.pathname === '/bare.js') return { type: 'text/javascript', body: await fs.readFile(path.join(scratch, 'bare.js')) };
    const file = path.join(tilesFolder, path.normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(tilesFolder)) return undefined;
    return { type: file.endsWith('.json') ? 'application/json' : 'model/gltf-binary', body: await fs.readFile(file) };
  });

  parentOrigin = bareServer.origin;
  const client = await seedOrganization(store.env);
  const port = await freePort();
  const platform = await openPlatform(
    loadConfig({ ...store.env, PORT: String(port), RDP_LOG_LEVEL: 'silent', RDP_PUBLIC_URL: viewerOrigin }),
  );
  const app = await buildApp(platform, { logger: false });
  await app.listen({ host: '127.0.0.1', port });
  const worker = await startWorker(platform);
  const browser = await launchBrowser();
  try {
    apiOrigin = `http://127.0.0.1:${port}`;
    apiBase = `${viewerOrigin}/eu/reality/v1`;
    const token = await fetchToken(viewerOrigin, client);
    const call = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${apiBase}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = (await response.json()) as any;
      if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const division = await call('POST', `/nodes/${client.orgId}/division`, { name: 'Plants' });
    const site = await call('POST', `/nodes/${division.id}/site`, { name: 'Plant', address: '1 Plant Road' });
    siteId = site.id;
    const bundle = await call('POST', `/nodes/${site.id}/bundle`, { name: 'Scan' });
    const session = await call('POST', `/bundles/${bundle.id}/upload-sessions`);
    const lasFile = path.join(scratch, 'scan.las');
    await writeLas(lasFile, POINTS);
    const bytes = await fs.readFile(lasFile);
    const added = await call('POST', `/bundles/${bundle.id}/upload-sessions/${session.id}/files`, {
      name: 'scan.las',
      size: bytes.length,
    });
    const put = await fetch(added.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) });
    const etag = (put.headers.get('etag') ?? '').replaceAll('"', '');
    await call('POST', `/bundles/${bundle.id}/upload-sessions/${session.id}/finalize`, { files: [{ id: added.id, etag }] });
    const { cost } = await call('GET', `/bundles/${bundle.id}/processing/cost`);
    await call('POST', `/bundles/${bundle.id}/processing`, { cost });
    for (let waited = 0; ; waited += 200) {
      const { state } = await call('GET', `/bundles/${bundle.id}`);
      if (state === 'ready') break;
      if (state === 'failed' || waited > 300_000) throw new Error(`the processing ended ${state}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await call('PUT', `/twin/${site.id}/layers/${bundle.id}`);
    const output = await platform
      .region('eu')
      .store.db.selectFrom('stored_objects')
      .select(['blob_key'])
      .where('purpose', '=', 'derivative')
      .where('format', '=', '3d-tiles')
      .executeTakeFirstOrThrow();
    tilesFolder = path.join(store.dataDir, 'blobs', 'objects', output.blob_key);

    const viewerUrl = `${viewerOrigin}/viewer/${siteId}#token=${token}`;
    // Functions, not strings: the viewer page's CSP allows no eval.
    const readViewer = () => (window as any).rdpViewerStatus?.().firstContentFrameAt || false;
    const readBare = () => (window as any).firstContentFrameAt || false;
    // One of each first, unmeasured: chromium's own start-up (shader compiler, GPU process) is no page's.
    await timeToFirstFrame(browser, viewerUrl, readViewer);
    await timeToFirstFrame(browser, `${bareServer.origin}/`, readBare);
    const ratios: number[] = [];
    const viewerTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const measure = [
        () => timeToFirstFrame(browser, viewerUrl, readViewer).then((time) => viewerTimes.push(time)),
        () => timeToFirstFrame(browser, `${bareServer.origin}/`, readBare).then((time) => bareTimes.push(time)),
      ];
      if (round % 2 === 1) measure.reverse();
      for (const step of measure) await step();
      ratios.push((viewerTimes.at(-1) as number) / (bareTimes.at(-1) as number));
    }
    const ratio = median(ratios);
    framedUrl = viewerUrl;
    const frames = await frameTimes(browser, `${parentOrigin}/parent`, viewerOrigin);
    const frameRatio = median(frames.ratios);
    log(
      `  frame time: eye-dome lighting and a clip box on ${ms(frames.on)}, off ${ms(frames.off)}; median ratio ${times(frameRatio)} (rounds ${frames.ratios.map(times).join(' ')})`,
    );
    log(
      `  frame time: eye-dome lighting alone ${ms(frames.eyeDomeOnly)}; median ratio ${times(median(frames.eyeDomeRatios))} (rounds ${frames.eyeDomeRatios.map(times).join(' ')})`,
    );
    const { sizes } = built;
    log(
      `  viewer.js ${(sizes['viewer.js'].gzipBytes / 1024).toFixed(1)} KiB gzip (budget 250 KB); bare page script built the same way`,
    );
    log(
      `  first frame: viewer ${ms(median(viewerTimes))}, bare ${ms(median(bareTimes))}; median ratio ${times(ratio)} (rounds ${ratios.map(times).join(' ')})`,
    );
    return [
      {
        bench: 'viewer',
        measure: 'first frame vs bare three.js page',
        ratio: times(ratio),
        target: `≤ ${TARGET}x`,
        met: ratio <= TARGET,
      },
      {
        bench: 'viewer',
        measure: 'frame time, eye-dome lighting and clip box on vs off',
        ratio: times(frameRatio),
        target: `≤ ${FRAME_TARGET}x`,
        met: frameRatio <= FRAME_TARGET,
      },
      {
        bench: 'viewer',
        measure: 'frame time, eye-dome lighting alone vs off',
        ratio: times(median(frames.eyeDomeRatios)),
        target: `≤ ${FRAME_TARGET}x`,
        met: median(frames.eyeDomeRatios) <= FRAME_TARGET,
      },
      {
        bench: 'viewer',
        measure: 'viewer.js gzip',
        ratio: `${(sizes['viewer.js'].gzipBytes / 1024).toFixed(1)} KiB`,
        target: '≤ 250 KB',
        met: sizes['viewer.js'].gzipBytes <= 250 * 1024,
      },
    ];
  } finally {
    await browser.close();
    await worker.stop();
    await app.close();
    await platform.close();
    await viewerServer.close();
    await bareServer.close();
    await store.remove();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

runMain(import.meta.url, runViewer);
