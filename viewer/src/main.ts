import { TwinApi } from './api.js';
import { showSessionRefused } from './messages.js';
import { Viewer } from './viewer.js';
import type { ViewerConfig } from './viewer-types.js';

declare const __RDP_VIEWER_VERSION__: string;

/**
 * The viewer page's script (src/http/viewer/viewer-page.ts): the configuration from
 * `#rdp-viewer-config`, the token from the address's fragment (`#token=...`, never sent to a
 * server by the browser), then the viewer in `#rdp-viewer`.
 */
function start(): void {
  const container = document.getElementById('rdp-viewer');
  const configElement = document.getElementById('rdp-viewer-config');
  if (!container || !configElement) return;
  const config = readConfig(configElement.textContent ?? '');
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (!token) {
    showSessionRefused(container, 'This address carries no access token (#token=...): open the link you were given.');
    return;
  }
  const api = new TwinApi(config, token);
  // The twin's read goes out first: it overlaps the making of the WebGL context and the scene.
  const twinRead = api.twin();
  twinRead.catch(() => undefined);
  const viewer = new Viewer(container, config, api, __RDP_VIEWER_VERSION__);
  (window as unknown as { rdpViewerStatus: () => unknown }).rdpViewerStatus = () => viewer.status();
  void viewer.load(twinRead);
}

/**
 * The configuration's JSON. The page writes it through its HTML template, which escapes quotes
 * as entities, and a browser decodes no entity inside a script element: so JSON as written is
 * read first, and failing that the same text with its entities decoded.
 */
function readConfig(text: string): ViewerConfig {
  try {
    return JSON.parse(text) as ViewerConfig;
  } catch {
    const decoded = new DOMParser().parseFromString(`<!doctype html><body>${text}`, 'text/html').body.textContent ?? '';
    return JSON.parse(decoded) as ViewerConfig;
  }
}

start();
