import {
  CONSOLE_ASSETS_PATH,
  CONSOLE_SCRIPT_FILE,
  CONSOLE_STYLE_FILE,
  type ConsoleConfig,
} from '../../domain/console/console-config.js';
import { html, type SafeHtml } from '../../domain/html.js';
import { scriptJson } from '../viewer/viewer-page.js';

/**
 * The console's one page: a root element its script fills, the configuration as JSON, and the
 * built script and style sheet, each addressed with its content hash (served immutable under it).
 */
export function consolePage(config: ConsoleConfig, versions: { script?: string; style?: string }): SafeHtml {
  const scriptVersion = versions.script ? `?v=${versions.script}` : '';
  const styleVersion = versions.style ? `?v=${versions.style}` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Reality Data Platform console</title>
<link rel="stylesheet" href="${CONSOLE_ASSETS_PATH}/${CONSOLE_STYLE_FILE}${styleVersion}">
</head>
<body>
<div id="rdp-console"><p class="loading">Loading the console…</p></div>
<noscript><p>The console needs JavaScript. The API reference and the sign-in pages work without it.</p></noscript>
<script id="rdp-console-config" type="application/json">${scriptJson(config)}</script>
<script type="module" src="${CONSOLE_ASSETS_PATH}/${CONSOLE_SCRIPT_FILE}${scriptVersion}"></script>
</body>
</html>`;
}

/**
 * The console's Content-Security-Policy: its own scripts and styles only; connections and
 * images from this origin and `otherSources` (a region's API published elsewhere, the S3
 * endpoint of signed addresses: uploads go there straight from the browser); frames only from
 * this origin (the viewer's embed page); framed by nobody.
 */
export function consoleContentSecurityPolicy(otherSources: string[]): string {
  const others = otherSources.join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob: ${others}`.trim(),
    `connect-src 'self' ${others}`.trim(),
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
