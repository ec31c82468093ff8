import type { FastifyInstance } from 'fastify';
import {
  CONSOLE_ASSETS_PATH,
  CONSOLE_PATH,
  CONSOLE_SCRIPT_FILE,
  CONSOLE_STYLE_FILE,
} from '../../domain/console/console-config.js';
import { CONSOLE_CLIENT } from '../../domain/oauth/console-client.js';
import { noneMatch, quoteEtag } from '../../domain/uploads/etag.js';
import type { Platform } from '../../platform.js';
import { BuiltAssets } from '../built-assets.js';
import { viewerConnectSources } from '../viewer/viewer-routes.js';
import { consoleContentSecurityPolicy, consolePage } from './console-page.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The web console (docs/console.md): one page for every path under /console, whose script signs
 * in with the authorization code and PKCE as the `rdp-console` client and then calls the public
 * API like any other client; and the console's built files.
 */
export default async function consoleRoutes(app: FastifyInstance, options: { platform: Platform }) {
  const { config } = options.platform;
  const assets = new BuiltAssets(config.consoleAssetsDir);
  const publicUrl = config.publicUrl.replace(/\/+$/, '');
  const pageConfig = {
    authUrl: `${publicUrl}/auth`,
    clientId: CONSOLE_CLIENT.clientId,
    redirectUri: `${publicUrl}${CONSOLE_CLIENT.redirectPath}`,
    scopes: [...CONSOLE_CLIENT.scopes],
  };
  const csp = consoleContentSecurityPolicy(viewerConnectSources(options.platform));

  const sendPage = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    const [script, style] = await Promise.all([assets.get(CONSOLE_SCRIPT_FILE), assets.get(CONSOLE_STYLE_FILE)]);
    return reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': csp,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      })
      .send(consolePage(pageConfig, { script: script?.hash, style: style?.hash }).value);
  };
  const hide = { schema: { hide: true } };
  app.get(CONSOLE_PATH, hide, sendPage);
  app.get(`${CONSOLE_PATH}/*`, hide, sendPage);

  app.get<{ Params: { file: string }; Querystring: { v?: string } }>(
    `${CONSOLE_ASSETS_PATH}/:file`,
    hide,
    async (request, reply) => {
      const asset = await assets.get(request.params.file);
      if (!asset) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: 'No such console file' });
      const etag = quoteEtag(asset.hash);
      reply.headers({
        etag,
        'cache-control': request.query.v === asset.hash ? IMMUTABLE : 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.header('content-type', asset.contentType).send(asset.bytes);
    },
  );
}
