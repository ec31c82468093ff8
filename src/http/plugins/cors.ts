import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { REGIONS } from '../../domain/regions.js';

/**
 * What browser clients call (the spec allows public, browser-only clients): every regional API,
 * the embedded blob endpoint its signed upload and download addresses point at (a browser reads
 * the ETag a PUT answers), and on the authorization server only the machine endpoints, never its
 * HTML pages and forms (consent, sign-in, settings, invitations), opened by navigation.
 */
const CORS_PREFIXES = [...REGIONS.map((region) => `/${region}/reality/`), '/blob/'];
const CORS_PATHS = new Set([
  '/auth/oauth/token',
  '/auth/oauth/api-info',
  '/auth/oauth/jwks',
  '/.well-known/oauth-authorization-server/auth',
]);

function hasCors(url: string): boolean {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return CORS_PATHS.has(path) || CORS_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** The request headers a client sends (Range: site-file downloads; X-Request-Id: its own trace). */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'Range', 'X-Request-Id'];
/** The answer's headers a client reads: rate limits, caching, created objects, downloads, the next page's cursor. */
const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'ETag',
  'X-Request-Id',
  'Location',
  'Content-Range',
  'Content-Disposition',
  'Idempotent-Replayed',
  'Next-Cursor',
];

/**
 * CORS (@fastify/cors) for the origins of RDP_CORS_ORIGINS (`*`: any). Registered at the root so
 * refusals (401, 404, 429, framework errors excepted) carry the headers too and a browser can read
 * them. An origin not listed, a request without Origin, or a path without CORS gets no CORS header
 * at all; its preflight falls to the not-found handler, which answers 204 without them.
 * Tokens travel in the Authorization header, never in cookies: no credentials mode.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  const common: FastifyCorsOptions = {
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    // Browsers cache a preflight this long (Chromium caps it at two hours).
    maxAge: 600,
    // A bare OPTIONS from an allowed origin (no Access-Control-Request-Method) is answered as a
    // preflight, instead of the plugin's text/plain 400 outside our error shape.
    strictPreflight: false,
  };
  // Any origin: `*`, the same answer for every caller; a list: the caller's origin, echoed.
  const open: FastifyCorsOptions = { ...common, origin: anyOrigin ? '*' : true };
  const closed: FastifyCorsOptions = { origin: false };
  await app.register(cors, {
    hook: 'onRequest',
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin;
      const allowedOrigin = origin !== undefined && (anyOrigin || allowed.has(origin));
      callback(null, allowedOrigin && hasCors(request.url) ? open : closed);
    },
  });
}
