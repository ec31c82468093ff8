import type { FastifyInstance, FastifyReply } from 'fastify';
import { viewerSessions } from '../../composition/region-services.js';
import { EMBED_PAGE_PATH } from '../../domain/embed/embed-sessions.js';
import { html } from '../../domain/html.js';
import { noneMatch, quoteEtag } from '../../domain/uploads/etag.js';
import { VIEWER_ASSETS_PATH, VIEWER_SCRIPT_FILE, type ViewerConfig } from '../../domain/viewer/viewer-config.js';
import type { Platform } from '../../platform.js';
import { BuiltAssets } from '../built-assets.js';
import { viewerContentSecurityPolicy, viewerPage } from './viewer-page.js';

const TITLE = 'Reality Data Platform viewer';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The origins the viewer's script may fetch from besides its own: each served region's API when
 * it is published elsewhere, and the S3 endpoint of signed download addresses.
 */
export function viewerConnectSources(platform: Platform): string[] {
  const { config } = platform;
  const self = new URL(config.publicUrl).origin;
  const origins = new Set(config.regions.map((region) => new URL(config.regionUrls[region]).origin));
  const s3 = config.blobs.s3;
  if (s3) {
    if (s3.endpoint) {
      const endpoint = new URL(s3.endpoint);
      origins.add(s3.forcePathStyle ? endpoint.origin : `${endpoint.protocol}//${s3.bucket}.${endpoint.host}`);
    } else {
      origins.add(`https://${s3.bucket}.s3.${s3.region}.amazonaws.com`);
    }
  }
  origins.delete(self);
  return [...origins];
}

/** A small page that says why there is no viewer, framed by the same origins the viewer would be. */
function messagePage(reply: FastifyReply, status: number, message: string, frameAncestors: string[]) {
  return reply
    .code(status)
    .headers(pageHeaders(viewerContentSecurityPolicy(frameAncestors)))
    .send(
      html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${TITLE}</title></head>
<body style="margin:0;height:100vh;display:flex;align-items:center;justify-content:center;background:#202428;color:#e8e8e8;font:16px system-ui,sans-serif">
<p id="rdp-viewer-message">${message}</p>
</body>
</html>`.value,
    );
}

function pageHeaders(csp: string) {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

/**
 * The viewer's pages and files, outside any region's prefix (docs/embedding.md): the page of an
 * embed session, framed only by its origins, and the built scripts it and integrators load.
 */
export default async function viewerRoutes(app: FastifyInstance, options: { platform: Platform }) {
  const { platform } = options;
  const sessions = viewerSessions(platform);
  const assets = new BuiltAssets(platform.config.viewerAssetsDir);
  const connectSources = viewerConnectSources(platform);

  app.get<{ Params: { sessionId: string } }>(
    `${EMBED_PAGE_PATH}/:sessionId`,
    { schema: { hide: true } },
    async (request, reply) => {
      const found = /^[A-Za-z0-9-]{1,64}$/.test(request.params.sessionId)
        ? await sessions.find(request.params.sessionId)
        : undefined;
      if (!found) return messagePage(reply, 404, 'This embedded view does not exist.', []);
      const allowedOrigins = JSON.parse(found.row.allowed_origins) as string[];
      if (found.state === 'revoked') return messagePage(reply, 410, 'This embedded view has been revoked.', allowedOrigins);
      if (found.state === 'expired') return messagePage(reply, 410, 'This embedded view has expired.', allowedOrigins);
      const { row, region } = found;
      const config: ViewerConfig = {
        apiBase: `${platform.config.regionUrls[region]}/v1`,
        target: { type: row.target_type, id: row.target_id },
        ctx: row.target_type === 'twin' ? row.site_id : row.target_id,
        allowedOrigins,
        embedSessionId: row.id,
      };
      const script = await assets.get(VIEWER_SCRIPT_FILE);
      return reply
        .headers(pageHeaders(viewerContentSecurityPolicy(allowedOrigins, connectSources)))
        .send(viewerPage(TITLE, config, script?.hash).value);
    },
  );

  app.get<{ Params: { file: string }; Querystring: { v?: string } }>(
    `${VIEWER_ASSETS_PATH}/:file`,
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = await assets.get(request.params.file);
      if (!asset) {
        return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: 'No such viewer file' });
      }
      const etag = quoteEtag(asset.hash);
      reply.headers({
        etag,
        // The address with the current hash never changes; without it, ask again each time (304).
        'cache-control': request.query.v === asset.hash ? IMMUTABLE : 'no-cache',
        // Integrators' pages load rdp-embed.js from their own origin, as a module script too.
        'access-control-allow-origin': '*',
        'cross-origin-resource-policy': 'cross-origin',
        'x-content-type-options': 'nosniff',
      });
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.header('content-type', asset.contentType).send(asset.bytes);
    },
  );
}
