import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildViewer } from '../../scripts/build-viewer.mjs';
import type { ViewerConfig } from '../../src/domain/viewer/viewer-config.js';
import { VIEWER_ASSETS_PATH } from '../../src/domain/viewer/viewer-config.js';
import { viewerContentSecurityPolicy, viewerPage } from '../../src/http/viewer/viewer-page.js';

export interface BuiltViewer {
  dir: string;
  version: string;
  sizes: Record<'viewer.js' | 'rdp-embed.js', { bytes: number; gzipBytes: number }>;
  remove(): Promise<void>;
}

/** The viewer's scripts built as `npm run build:viewer` builds them, into a directory of the test's own. */
export async function buildViewerForTest(): Promise<BuiltViewer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rdp-viewer-'));
  const { version, sizes } = await buildViewer(dir);
  return { dir, version, sizes, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 (its own origin) answering `route(path)` with HTML, or the built scripts under /viewer/assets/. */
export async function pageServer(
  built: BuiltViewer,
  route: (url: URL) => { html: string; headers?: Record<string, string> } | undefined,
): Promise<PageServer> {
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://page.invalid');
    if (url.pathname.startsWith(`${VIEWER_ASSETS_PATH}/`)) {
      const file = url.pathname.slice(VIEWER_ASSETS_PATH.length + 1);
      const body = /^[a-z-]+\.js$/.test(file) ? await readFile(path.join(built.dir, file)).catch(() => undefined) : undefined;
      if (!body) response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(body);
      return;
    }
    const page = route(url);
    if (!page) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The viewer page as the platform serves it (viewerPage, with its Content-Security-Policy), the
 * API on another origin named as a connect source. `/viewer/{ctx}` shows that site's twin. The
 * frame ancestors are the allowed origins unless given apart (to test the viewer's own allow-list).
 */
export function viewerRoute(apiBase: string, apiOrigin: string, allowedOrigins: () => string[], frameAncestors = allowedOrigins) {
  return (url: URL) => {
    const match = /^\/viewer\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (!match) return undefined;
    const config: ViewerConfig = {
      apiBase,
      target: { type: 'twin', id: match[1]! },
      ctx: match[1]!,
      allowedOrigins: allowedOrigins(),
    };
    return {
      html: viewerPage('Twin', config).toString(),
      headers: { 'content-security-policy': viewerContentSecurityPolicy(frameAncestors(), [apiOrigin]) },
    };
  };
}

/**
 * An integrator's page framing the viewer with rdp-embed.js: it records the plain messages it
 * receives (`window.plainMessages`) and the events of the penpal connection (`window.events`),
 * and keeps the connection as `window.viewer`.
 */
export function parentPage(viewerOrigin: string, iframeUrl: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>integrator</title>
<script src="${viewerOrigin}/viewer/assets/rdp-embed.js"></script></head>
<body style="margin:0">
<iframe id="twin" src="${iframeUrl}" style="width:800px;height:600px;border:0"></iframe>
<script>
window.plainMessages = [];
window.events = [];
window.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'rdp.ready') window.plainMessages.push({ origin: event.origin, data: event.data });
});
const iframe = document.getElementById('twin');
window.connected = RdpViewer.connect(iframe).then((viewer) => {
  window.viewer = viewer;
  for (const name of ['ready', 'poiSelected', 'zoneSelected', 'cameraChanged', 'pointPicked', 'error', 'toolChanged', 'measurementCreated', 'measurementSelected']) {
    viewer.on(name, (payload) => window.events.push({ name, payload }));
  }
  return true;
});
</script></body></html>`;
}
