import { TwinApi } from './api.js';
import type { ViewerConfig } from './api-types.js';
import { showSessionRefused } from './messages.js';
import { Viewer } from './viewer.js';

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
  const config = JSON.parse(configElement.textContent ?? '') as ViewerConfig;
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

start();
