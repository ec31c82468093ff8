import { html, SafeHtml } from '../../domain/html.js';
import { VIEWER_ASSETS_PATH, VIEWER_SCRIPT_FILE, type ViewerConfig } from '../../domain/viewer/viewer-config.js';

/**
 * The viewer's page: a full-window element the script fills, the configuration as JSON (read with
 * JSON.parse), and the bundled script from the API's own origin.
 * `scriptVersion`, the script's content hash, makes its address change with each build, so the
 * browser may keep it for good (viewer-routes.ts serves it immutable under that `?v=`).
 */
export function viewerPage(title: string, config: ViewerConfig, scriptVersion?: string): SafeHtml {
  const configJson = scriptJson(config);
  const version = scriptVersion ? `?v=${scriptVersion}` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
</head>
<body style="margin:0;height:100vh;overflow:hidden;background:#202428;color:#e8e8e8;font:14px system-ui,sans-serif">
<div id="rdp-viewer" style="position:absolute;inset:0"></div>
<script id="rdp-viewer-config" type="application/json">${configJson}</script>
<script type="module" src="${VIEWER_ASSETS_PATH}/${VIEWER_SCRIPT_FILE}${version}"></script>
</body>
</html>`;
}

/**
 * JSON to place inside a script element. A browser decodes no entity there, so it is not
 * HTML-escaped; instead `<`, `>` and `&` are written as JSON escapes, so no value can close the
 * element or open a comment, and U+2028/U+2029 likewise.
 */
export function scriptJson(value: unknown): SafeHtml {
  const escaped = JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return new SafeHtml(escaped);
}

/**
 * The page's Content-Security-Policy: scripts only from this origin, connections to this origin
 * (the API, the tiles, the signed blob addresses of the embedded store) plus `connectSources`
 * (an S3 endpoint), and framing only by `frameAncestors` ('none' when empty).
 */
export function viewerContentSecurityPolicy(frameAncestors: string[], connectSources: string[] = []): string {
  const ancestors = frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self' blob: data: ${connectSources.join(' ')}`.trim(),
    "worker-src 'self' blob:",
    "base-uri 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}
