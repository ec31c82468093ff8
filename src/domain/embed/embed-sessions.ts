import { html, type SafeHtml } from '../html.js';
import type { ViewerTargetType } from '../viewer/viewer-config.js';

/**
 * Embed sessions (docs/design/embedding.md#embed-sessions, docs/embedding.md): a read-only bearer
 * token for one target, framed only by the session's origins, until it expires or is revoked. No
 * I/O here.
 */
export const EMBED_TOKEN_PREFIX = 'rdpe_';
export const MIN_EXPIRES_IN_SECONDS = 300;
export const MAX_EXPIRES_IN_SECONDS = 86_400;
export const DEFAULT_EXPIRES_IN_SECONDS = 3600;
export const MAX_ALLOWED_ORIGINS = 20;
/** Where the viewer page of a session is served, under the platform's public origin. */
export const EMBED_PAGE_PATH = '/viewer/embed';

export type EmbedTargetType = ViewerTargetType;

/** The client id a request with an embed token acts under: the session's id after this prefix. */
const EMBED_CLIENT_PREFIX = 'embed-session:';

export function embedSessionClientId(sessionId: string): string {
  return `${EMBED_CLIENT_PREFIX}${sessionId}`;
}

/** The embed session a request's client id names, or undefined for any other token. */
export function embedSessionIdOf(clientId: string): string | undefined {
  return clientId.startsWith(EMBED_CLIENT_PREFIX) ? clientId.slice(EMBED_CLIENT_PREFIX.length) : undefined;
}

/** An opaque token that no one mistakes for a JWT (it has no dots and says what it is). */
export function isEmbedToken(token: string): boolean {
  return token.startsWith(EMBED_TOKEN_PREFIX);
}

/**
 * The reason an allowed origin is refused, or undefined when it is one: https with any host, or
 * http on localhost or 127.0.0.1, with an optional port, and nothing else (the form a browser
 * sends in Origin and compares with frame-ancestors, so no trailing slash, no default port).
 */
export function originProblem(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'is not an origin like https://app.example.com';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https origin';
  if (parsed.protocol === 'http:' && parsed.hostname !== 'localhost' && parsed.hostname !== '127.0.0.1') {
    return 'must be https (http only for localhost and 127.0.0.1)';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (parsed.origin !== value) {
    return `must be an origin only (scheme, host and optional port; no path, query or fragment): ${parsed.origin}`;
  }
  return undefined;
}

/** 400 messages for a list of allowed origins, or none. */
export function allowedOriginsProblem(origins: readonly string[]): string | undefined {
  for (const [index, origin] of origins.entries()) {
    const problem = originProblem(origin);
    if (problem) return `body.allowedOrigins[${index}] ${problem}`;
  }
  if (new Set(origins).size !== origins.length) return 'body.allowedOrigins must not repeat an origin';
  return undefined;
}

/** The iframe an integrator pastes into a page: the address carries the token in its fragment. */
export function embedHtml(iframeUrl: string, title: string): SafeHtml {
  return html`<iframe src="${iframeUrl}" title="${title}" allow="fullscreen" referrerpolicy="no-referrer" style="border:0;width:100%;height:600px"></iframe>`;
}

/**
 * Which routes an embed token may call (docs/design/embedding.md#token-reach), from the route's method and path:
 * `target` the reads under /v1/twin/{ctx} and GET /v1/planning/{ctx}/layouts and /layers (checked against the session's target), `layerTiles`
 * the tiles of a derivative (checked against the target's layers); none: every other route.
 */
export type EmbedReach = 'target' | 'layerTiles';

export function embedReachOf(method: string, url: string): EmbedReach | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  if (/\/v1\/twin\/:contextId(\/|$)/.test(url) || /\/v1\/planning\/:contextId\/(layouts|layers)$/.test(url)) return 'target';
  if (/\/v1\/nodes\/:nodeId\/tiles\//.test(url)) return 'layerTiles';
  return undefined;
}
