/**
 * What the viewer page hands its script (docs/design/viewer.md#viewer-page): where the API is, what
 * to show, and which parent origins may talk to it. The token is never part of it: it travels in
 * the address's fragment (`#token=...`), so it reaches no log and no Referer.
 */
export type ViewerTargetType = 'twin' | 'twinDraft' | 'project' | 'layout';

export interface ViewerConfig {
  /** The region's API base, e.g. `https://host/eu/reality/v1`. */
  apiBase: string;
  target: { type: ViewerTargetType; id: string };
  /** The `{ctx}` of the reads the viewer makes: a site id for a twin, else the target's id. */
  ctx: string;
  /** Parent origins the postMessage API answers and posts to; empty: none (a page opened on its own). */
  allowedOrigins: string[];
  /** The embed session, when the page is one's. */
  embedSessionId?: string;
}

/** The page's script and its global name, as built by scripts/build-viewer (dist/viewer/). */
export const VIEWER_SCRIPT_FILE = 'viewer.js';
/** The script integrators include on the framing page. */
export const EMBED_SCRIPT_FILE = 'rdp-embed.js';
/** Where the API serves the built files: `${VIEWER_ASSETS_PATH}/${file}` under the server's origin. */
export const VIEWER_ASSETS_PATH = '/viewer/assets';
